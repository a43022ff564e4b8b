package io.rkllm.server.backend.llama;

import io.rkllm.llama.LlamaException;
import io.rkllm.llama.LlamaModel;
import io.rkllm.llama.Sampler;
import io.rkllm.llama.SamplingParams;
import io.rkllm.llama.grammar.InvalidGrammarException;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A sampler constrained by an answer's grammar, or none when llama.cpp refuses the grammar (its own limits: more
 * repetitions of one rule than it takes, however the converter kept within them). The answer is then written freely
 * and the pipeline checks it and asks once more, as for a schema the converter does not translate: a refusal that
 * every retry would meet again is never the client's error.
 */
final class GrammarSampler {
    private static final Logger LOG = LoggerFactory.getLogger(GrammarSampler.class);

    private GrammarSampler() {
    }

    static Optional<Sampler> of(LlamaModel model, SamplingParams sampling, AnswerGrammar grammar, String id) {
        try {
            return Optional.of(model.newSampler(sampling.withGrammar(grammar.gbnf())));
        } catch (LlamaException | InvalidGrammarException e) {
            LOG.warn("model {}: llama.cpp refused the answer's grammar ({}); the answer is written freely and checked",
                    id, e.getMessage());
            return Optional.empty();
        }
    }
}
