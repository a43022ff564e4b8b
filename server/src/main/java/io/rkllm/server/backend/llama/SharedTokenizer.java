package io.rkllm.server.backend.llama;

import io.rkllm.llama.LlamaModel;
import io.rkllm.llama.ModelClosedException;
import io.rkllm.llama.Vocabulary;
import io.rkllm.server.engine.contract.ModelTokenizer;
import java.util.List;
import java.util.function.Function;

/**
 * A loaded model's vocabulary lent to any thread, as llama-server's HTTP threads tokenize while its loop decodes:
 * each call is one of {@link LlamaModel#lendVocabulary}, so the model is not freed under it, whichever path frees it
 * (an unload, or the decode loop ending on a failure).
 */
final class SharedTokenizer implements ModelTokenizer {
    private final String id;
    private final LlamaModel model;

    SharedTokenizer(String id, LlamaModel model) {
        this.id = id;
        this.model = model;
    }

    @Override
    public int[] tokenize(String text, boolean addSpecial, boolean parseSpecial) {
        return lent(v -> v.tokenize(text, addSpecial, parseSpecial));
    }

    @Override
    public List<byte[]> pieces(int[] tokens) {
        return lent(v -> v.pieces(tokens, true));
    }

    @Override
    public int vocabularySize() {
        return lent(Vocabulary::size);
    }

    private <T> T lent(Function<Vocabulary, T> call) {
        try {
            return model.lendVocabulary(call);
        } catch (ModelClosedException e) {
            throw new Unloaded(id);
        }
    }
}
