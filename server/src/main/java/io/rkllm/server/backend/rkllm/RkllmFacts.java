package io.rkllm.server.backend.rkllm;

import io.rkllm.server.models.ModelFacts;

/**
 * What the RKLLM provider knows of a {@code .rkllm} model from its file: nothing but that it is one. The file is
 * opaque (only its name, size and date are read), so a loaded handle is estimated from the file's size, and each
 * conversation kept cached takes a handle of its own ({@code cache.slots}).
 */
record RkllmFacts() implements ModelFacts {

    @Override
    public String engine() {
        return RkllmProvider.NAME;
    }

    @Override
    public String format() {
        return "rkllm";
    }
}
