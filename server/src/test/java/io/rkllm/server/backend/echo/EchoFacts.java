package io.rkllm.server.backend.echo;

import io.rkllm.server.models.ModelFacts;

/** An echo model: run by the echo engine, two conversations at once in one loaded copy. */
record EchoFacts() implements ModelFacts {

    @Override
    public String engine() {
        return EchoProvider.NAME;
    }

    @Override
    public String format() {
        return "echo";
    }

    @Override
    public int parallel() {
        return 2;
    }

    @Override
    public boolean oneCopyServesAll() {
        return true;
    }

    @Override
    public long copyBytes(long fileBytes, int context) {
        return 1 << 20;
    }
}
