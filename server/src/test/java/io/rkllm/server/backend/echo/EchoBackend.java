package io.rkllm.server.backend.echo;

import io.rkllm.server.engine.contract.ChatPrompt;
import io.rkllm.server.engine.contract.Backend;
import io.rkllm.server.engine.contract.BackendModel;
import io.rkllm.server.engine.contract.LoadContext;
import io.rkllm.server.engine.contract.ModelLoad;
import io.rkllm.server.engine.contract.RuntimeInfo;
import io.rkllm.server.engine.contract.Sampling;
import java.util.OptionalLong;

/** The echo engine opened: it loads any {@code .echo} file as an {@link EchoModel}. */
final class EchoBackend implements Backend {
    private final String prefix;

    EchoBackend(String prefix) {
        this.prefix = prefix;
    }

    @Override
    public RuntimeInfo info() {
        return new RuntimeInfo("echo engine", "echo-1", true,
                new Sampling(1, 1, 0, 1, 0, 0, 0, OptionalLong.empty()), false, true, ChatPrompt.Form.MESSAGES);
    }

    @Override
    public BackendModel load(ModelLoad load, LoadContext context) {
        return context.loadSlot(() -> new EchoModel(load.embedding(), prefix));
    }
}
