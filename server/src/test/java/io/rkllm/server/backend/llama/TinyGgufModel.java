package io.rkllm.server.backend.llama;

import io.rkllm.llama.gguf.TinyLlama;
import io.rkllm.server.engine.contract.ImageEmbeddingCache;
import io.rkllm.server.engine.contract.EncoderListener;
import io.rkllm.server.engine.contract.LoadContext;
import io.rkllm.server.engine.contract.ModelLoad;
import io.rkllm.server.engine.contract.Sampling;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.function.Supplier;

/**
 * The tests' tiny chat model loaded straight into the llama backend, as the engine's worker loads it but without
 * the engine's memory check: one decode thread, {@code parallel} conversations sharing a cache of {@code context}
 * tokens, greedy by default.
 */
final class TinyGgufModel {
    static final Sampling GREEDY = new Sampling(0, 1, 0, 1, 0, 0);

    private TinyGgufModel() {
    }

    static GgufModel load(Path dir, int context, int parallel) throws IOException {
        return load(dir, context, parallel, TinyLlama.Options.chat());
    }

    static GgufModel load(Path dir, int context, int parallel, TinyLlama.Options options) throws IOException {
        return load(dir, context, new LlamaSettings(1, parallel, OptionalInt.empty()), options);
    }

    static GgufModel load(Path dir, int context, LlamaSettings settings, TinyLlama.Options options)
            throws IOException {
        Path file = dir.resolve("tiny.gguf");
        TinyLlama.write(file, options);
        LlamaBackend backend = new LlamaBackend(TestLlamaLibrary.runtime(), settings);
        return (GgufModel) backend.load(new ModelLoad("tiny", LlamaProvider.NAME, file, "llama",
                new ModelLoad.Runs(context, GREEDY, false), new ModelLoad.Copies(1, 64, 0), Optional.empty()), new DirectLoad());
    }

    /** Loads directly, without the engine's memory check. */
    static final class DirectLoad implements LoadContext {
        @Override
        public <T> T loadSlot(Supplier<T> init) {
            return init.get();
        }

        @Override
        public <T> T loadEncoder(Supplier<T> init) {
            throw new UnsupportedOperationException();
        }

        @Override
        public ImageEmbeddingCache pictures() {
            throw new UnsupportedOperationException();
        }

        @Override
        public EncoderListener encoderListener() {
            return new EncoderListener() {
            };
        }
    }
}
