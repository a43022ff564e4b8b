package io.rkllm.rag;

import java.util.Objects;
import java.util.function.ToIntFunction;

/** Counts the tokens a text costs in the model's prompt (the server passes its tokenizer or estimate). */
@FunctionalInterface
public interface TokenCounter {
    int count(String text);

    /** Adapts any {@code ToIntFunction<String>}. */
    static TokenCounter of(ToIntFunction<String> f) {
        Objects.requireNonNull(f, "f");
        return f::applyAsInt;
    }

    /**
     * A tokenizer-free estimate for the Qwen/Llama/Gemma family of BPE vocabularies: about 3.6
     * characters per token for Latin-script text and about one token per Chinese or Japanese
     * character. Deliberately on the generous side so that budgets are not overrun.
     */
    static TokenCounter approximate() {
        return text -> {
            if (text == null || text.isEmpty()) {
                return 0;
            }
            int cjk = Scripts.countCjk(text);
            int other = text.codePointCount(0, text.length()) - cjk;
            return (int) Math.ceil(other / 3.6 + cjk * 1.0);
        };
    }
}
