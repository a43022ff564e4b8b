package io.rkllm.tools.bench;

import io.rkllm.llama.Batch;
import io.rkllm.llama.DecodeStatus;
import io.rkllm.llama.LlamaContext;
import io.rkllm.llama.LlamaModel;
import io.rkllm.llama.LlamaRuntime;
import io.rkllm.llama.Sampler;
import io.rkllm.llama.SamplingParams;
import io.rkllm.server.backend.llama.LlamaBackend;
import io.rkllm.server.backend.llama.LlamaSettings;
import java.nio.file.Path;

/**
 * llama.cpp through the binding alone, no server: the model opened and its context made exactly as the server's
 * backend makes them ({@link LlamaBackend#modelParams}, {@link LlamaBackend#chatContext}: the same threads, cells,
 * sequences and batch size), a prompt decoded in chunks of the batch size in sequence 0 from an empty cache, then
 * greedy decoding one token per step, each token turned into its text, until the token limit or the end of the
 * answer, as the server's decode loop does for one conversation.
 */
final class LibraryRun implements AutoCloseable {
    private final LlamaModel model;
    private final LlamaContext context;
    private final Batch batch;

    LibraryRun(LlamaRuntime runtime, Path file, LlamaSettings settings, int contextLength) {
        this.model = runtime.load(settings.modelParams(file));
        try {
            this.context = model.newContext(settings.chatContext(contextLength));
        } catch (RuntimeException e) {
            model.close();
            throw e;
        }
        this.batch = new Batch(context.batchSize(), 1);
    }

    LlamaModel model() {
        return model;
    }

    int batchSize() {
        return context.batchSize();
    }

    /** The tokens the server's decode loop makes of a prompt's text. */
    int[] tokenize(String text) {
        return model.tokenize(text, true, true);
    }

    /** One timed run: the prompt's prefill up to the first token, then up to {@code maxTokens} tokens in all. */
    Timing run(int[] prompt, int maxTokens) {
        context.kv().clear();
        try (Sampler sampler = model.newSampler(SamplingParams.greedy())) {
            long start = System.nanoTime();
            int output = -1;
            for (int done = 0; done < prompt.length; ) {
                batch.clear();
                int n = Math.min(batch.capacity(), prompt.length - done);
                for (int i = 0; i < n; i++) {
                    boolean last = done + i == prompt.length - 1;
                    int at = batch.add(prompt[done + i], done + i, 0, last);
                    output = last ? at : output;
                }
                decode();
                done += n;
            }
            int token = sampler.sample(context, output);
            long first = System.nanoTime();
            int generated = 0;
            int position = prompt.length;
            while (!model.isEndOfGeneration(token)) {
                generated++;
                model.tokenToPiece(token, false);
                if (generated >= maxTokens) {
                    break;
                }
                batch.clear();
                batch.add(token, position++, 0, true);
                decode();
                token = sampler.sample(context, 0);
            }
            long end = System.nanoTime();
            return new Timing(prompt.length, (first - start) / 1e6, generated, (end - first) / 1e6);
        } finally {
            context.kv().clear();
        }
    }

    private void decode() {
        DecodeStatus status = context.decode(batch);
        if (status != DecodeStatus.OK) {
            throw new IllegalStateException("llama_decode: " + status);
        }
    }

    @Override
    public void close() {
        batch.close();
        context.close();
        model.close();
    }
}
