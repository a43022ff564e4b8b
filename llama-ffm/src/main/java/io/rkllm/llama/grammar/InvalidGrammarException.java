package io.rkllm.llama.grammar;

/**
 * A GBNF grammar that llama.cpp would refuse, or accept and then fail on: a syntax error, a rule used but not
 * defined, no {@code root} rule, left recursion. Thrown before the grammar reaches the library, because some builds
 * (4916 among them) do not report a grammar they failed to parse: they create a sampler that constrains nothing.
 */
public final class InvalidGrammarException extends IllegalArgumentException {
    private static final long serialVersionUID = 1L;

    public InvalidGrammarException(String message) {
        super(message);
    }
}
