package io.rkllm.server.pipeline;

import io.rkllm.server.domain.Failure;
import io.rkllm.server.domain.FailureException;
import io.rkllm.server.engine.LoadedModel;
import io.rkllm.server.engine.contract.ChatPrompt;
import io.rkllm.server.engine.contract.ModelTokenizer;
import io.rkllm.server.models.ModelDescriptor;
import java.io.ByteArrayOutputStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * Text to a model's tokens and back with the model's own tokenizer (llama-server's {@code /tokenize} and
 * {@code /detokenize}, which editors and SillyTavern count tokens with): the model is loaded if it is not, and asked
 * on the caller's thread, beside its running generations, with nothing queued.
 */
public final class ModelTokens {
    private static final int ATTEMPTS = 3;

    private final ModelService models;
    private final Duration loadWait;

    /** @param loadWait how long a request waits for the model's load */
    public ModelTokens(ModelService models, Duration loadWait) {
        this.models = models;
        this.loadWait = loadWait;
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

    /** One token and its bytes as the model writes it (special tokens' texts included). */
    public record Token(int id, byte[] piece) {
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
    public List<Token> tokenize(String modelName, List<Part> parts, boolean addSpecial, boolean parseSpecial,
                                boolean pieces) {
        return withTokenizer(modelName, tokenizer -> {
            List<Integer> ids = new ArrayList<>();
            for (int i = 0; i < parts.size(); i++) {
                switch (parts.get(i)) {
                    case Part.Text t -> {
                        for (int id : tokenizer.tokenize(t.text(), addSpecial && i == 0, parseSpecial)) {
                            ids.add(id);
                        }
                    }
                    case Part.Token t -> ids.add(checked(tokenizer, t.id(), "content"));
                }
            }
            List<Token> tokens = new ArrayList<>(ids.size());
            for (int id : ids) {
                tokens.add(new Token(id, pieces ? tokenizer.piece(id) : new byte[0]));
            }
            return tokens;
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
        return withTokenizer(modelName, tokenizer -> {
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            for (int token : tokens) {
                out.writeBytes(tokenizer.piece(checked(tokenizer, token, "tokens")));
            }
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
                return work.apply(tokenizer);
            } catch (ModelTokenizer.Unloaded e) {
                // it gave way to another model between being found and being asked: load it again
                if (attempt == ATTEMPTS) {
                    throw new FailureException(new Failure.LoadFailed(model.id(), e.getMessage()));
                }
            }
        }
    }

    private static int checked(ModelTokenizer tokenizer, int token, String param) {
        int size = tokenizer.vocabularySize();
        if (token < 0 || token >= size) {
            throw new FailureException(Failure.InvalidRequest.of(param, "token " + token + " is not in the model's"
                    + " vocabulary, whose ids run from 0 to " + (size - 1)));
        }
        return token;
    }
}
