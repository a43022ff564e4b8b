package io.rkllm.server.backend.llama;

import io.rkllm.server.config.ServerConfig;
import io.rkllm.server.domain.Failure;
import io.rkllm.server.domain.FailureException;
import io.rkllm.server.engine.contract.Backend;
import io.rkllm.server.engine.contract.BackendModel;
import io.rkllm.server.engine.contract.LoadContext;
import io.rkllm.server.engine.contract.ModelLoad;
import io.rkllm.server.engine.contract.RuntimeInfo;

/**
 * llama.cpp for a server that started without GGUF models: its library is opened when the first one is asked for (a
 * model pulled or copied in while the server runs), not at every start of a board that serves only the NPU. A library
 * that does not open fails that model's load with the reason, and is tried again for the next.
 */
final class DeferredLlamaBackend implements Backend {
    private final ServerConfig.Llama config;
    private final long memoryBytes;
    private LlamaBackend opened;

    DeferredLlamaBackend(ServerConfig.Llama config, long memoryBytes) {
        this.config = config;
        this.memoryBytes = memoryBytes;
    }

    private synchronized LlamaBackend backend() {
        if (opened == null) {
            LlamaOpening engine = LlamaOpening.open(config);
            if (engine.runtime().isEmpty()) {
                throw new FailureException(new Failure.LoadFailed("", "GGUF models need the "
                        + LlamaBackend.NAME + ", which is not available: " + engine.missing()));
            }
            opened = engine.backend(config, memoryBytes);
        }
        return opened;
    }

    @Override
    public RuntimeInfo info() {
        return backend().info();
    }

    @Override
    public boolean loadFailureIsFatal() {
        return false; // llama.cpp reports a failed load; it never ends the process
    }

    @Override
    public BackendModel load(ModelLoad load, LoadContext context) {
        return backend().load(load, context);
    }
}
