package io.rkllm.server.pipeline;

import io.rkllm.server.domain.Failure;
import io.rkllm.server.domain.FailureException;
import io.rkllm.server.engine.LoadedModel;
import io.rkllm.server.engine.contract.ChatPrompt;
import io.rkllm.server.engine.contract.ModelTokenizer;
import io.rkllm.server.models.ModelDescriptor;
import java.io.ByteArrayOutputStream;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * Text to a model's tokens and back with the model's own tokenizer (llama-server's {@code /tokenize} and
 * {@code /detokenize}, which editors and SillyTavern count tokens with): the model is loaded if it is not, and asked
 * beside its running generations, with nothing queued, on two platform threads of this class's own.
 */
public final class ModelTokens {
    private static final int ATTEMPTS = 3;
    private static final int THREADS = 2;
    /**
     * The most tokens one request reads or writes: today's longest contexts (256k), and what a small heap holds with
     * every token's piece (the service's JVM has 256 MB).
     */
    static final int MAX_TOKENS = 262_144;

    private final ModelService models;
    private final Duration loadWait;
    /** Platform threads for the native calls, two at most (idle ones end after a while). */
    private final ThreadPoolExecutor tokenizing;

    /** @param loadWait how long a request waits for the model's load */
    public ModelTokens(ModelService models, Duration loadWait) {
        this.models = models;
        this.loadWait = loadWait;
        this.tokenizing = new ThreadPoolExecutor(THREADS, THREADS, 10, TimeUnit.SECONDS, new LinkedBlockingQueue<>(),
                Thread.ofPlatform().daemon().name("rkllm-tokenize-", 1).factory());
        this.tokenizing.allowCoreThreadTimeOut(true);
    }

    /** What is tokenized: texts, and token ids taken as they are, in order (llama-server's mixed prompts). */
    public sealed interface Part {
        /** A text, read by the tokenizer. */
        record Text(String text) implements Part {
        }

        /** A token id, kept as it is. */
        record Token(int id) implements Part {
        }
    }

    /**
     * The tokens of a text, and each one's bytes as the model writes it (special tokens' texts included) when asked.
     *
     * @param pieces one per id, or none
     */
    public record Tokens(int[] ids, List<byte[]> pieces) {
    }

    /**
     * The tokens of {@code parts}: the tokenizer's opening tokens only before a first part that is a text, each text
     * read on its own (as llama-server reads a mixed prompt).
     *
     * @param modelName the model asked for; empty for the only chat model (or a loaded one)
     * @param pieces    whether each token's bytes are wanted
     * @throws FailureException for no such model, a model without a tokenizer to ask, a token id outside its
     *                          vocabulary
     */
    public Tokens tokenize(String modelName, List<Part> parts, boolean addSpecial, boolean parseSpecial,
                           boolean pieces) {
        if (parts.size() > MAX_TOKENS) {
            throw tooLong("has more parts than that");
        }
        return withTokenizer(modelName, tokenizer -> {
            int size = tokenizer.vocabularySize();
            int[] ids = new int[Math.max(16, parts.size())];
            int count = 0;
            for (int i = 0; i < parts.size(); i++) {
                int[] more = switch (parts.get(i)) {
                    case Part.Text t -> tokenizer.tokenize(t.text(), addSpecial && i == 0, parseSpecial);
                    case Part.Token t -> new int[] {checked(t.id(), size, "content")};
                };
                if (count + more.length > MAX_TOKENS) {
                    throw tooLong("is longer than that");
                }
                if (count + more.length > ids.length) {
                    ids = Arrays.copyOf(ids, Math.max(ids.length * 2, count + more.length));
                }
                System.arraycopy(more, 0, ids, count, more.length);
                count += more.length;
            }
            int[] all = Arrays.copyOf(ids, count);
            return new Tokens(all, pieces ? tokenizer.pieces(all) : List.of());
        });
    }

    /**
     * The bytes the model writes for {@code tokens}, each token's piece after the other (special tokens' texts
     * included), as llama-server's {@code /detokenize} joins them.
     *
     * @throws FailureException for no such model, a model without a tokenizer to ask, a token id outside its
     *                          vocabulary
     */
    public byte[] detokenize(String modelName, int[] tokens) {
        if (tokens.length > MAX_TOKENS) {
            throw new FailureException(Failure.InvalidRequest.of("tokens", "'tokens' holds " + tokens.length
                    + " tokens; a request reads at most " + MAX_TOKENS + ": send them in parts"));
        }
        return withTokenizer(modelName, tokenizer -> {
            int size = tokenizer.vocabularySize();
            for (int token : tokens) {
                checked(token, size, "tokens");
            }
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            tokenizer.pieces(tokens).forEach(out::writeBytes);
            return out.toByteArray();
        });
    }

    private <T> T withTokenizer(String modelName, Function<ModelTokenizer, T> work) {
        ModelDescriptor model = modelName.isBlank() ? models.forRequest("") : models.find(modelName);
        Supplier<FailureException> none = () -> new FailureException(new Failure.InvalidRequest("model",
                "model_not_supported", "The model '" + model.id() + "' runs on " + models.runtime(model).name()
                + ", which reads its prompts with a tokenizer of its own the server cannot ask: GGUF models'"
                + " tokenizers are served"));
        if (models.runtime(model).promptForm() != ChatPrompt.Form.MESSAGES) {
            throw none.get(); // said without loading the model
        }
        for (int attempt = 1; ; attempt++) {
            LoadedModel loaded = models.acquire(model);
            ModelTokenizer tokenizer = loaded.worker().tokenizer(loadWait).orElseThrow(none);
            try {
                return offCarrier(() -> work.apply(tokenizer));
            } catch (ModelTokenizer.Unloaded e) {
                // it gave way to another model between being found and being asked: load it again
                if (attempt == ATTEMPTS) {
                    throw new FailureException(new Failure.LoadFailed(model.id(), e.getMessage()));
                }
            }
        }
    }

    /**
     * Runs {@code work} on one of the tokenizing threads and waits for it: a long text's native tokenization would
     * otherwise hold one of the few carriers every request's virtual thread runs on (a megabyte takes about half a
     * second), and two of them would stall the whole server.
     */
    private <T> T offCarrier(Supplier<T> work) {
        Future<T> result = tokenizing.submit(work::get);
        try {
            return result.get();
        } catch (InterruptedException e) {
            result.cancel(false);
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while the tokenizer ran", e);
        } catch (ExecutionException e) {
            if (e.getCause() instanceof RuntimeException r) {
                throw r;
            }
            throw new IllegalStateException(e.getCause());
        }
    }

    private static FailureException tooLong(String what) {
        return new FailureException(Failure.InvalidRequest.of("content", "a request tokenizes at most " + MAX_TOKENS
                + " tokens, and 'content' " + what + ": send it in parts"));
    }

    private static int checked(int token, int size, String param) {
        if (token < 0 || token >= size) {
            throw new FailureException(Failure.InvalidRequest.of(param, "token " + token + " is not in the model's"
                    + " vocabulary, whose ids run from 0 to " + (size - 1)));
        }
        return token;
    }
}
