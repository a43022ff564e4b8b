package io.rkllm.server.backend.llama;

import java.util.Arrays;
import java.util.function.IntFunction;

/**
 * The text a run of tokens spells, token by token: {@code ends[i]} is the length of the text after the first
 * {@code i} tokens (whole characters only), and {@code clean[i]} says whether the tokens can be cut there, the text
 * before the cut being exactly what those tokens spell. A token that holds part of a UTF-8 character is not a clean
 * place to cut (its character's text comes with a later token); nor is any place after a token whose text the prompt
 * would never show (a control token the model wrote: the text goes on without it).
 *
 * <p>Why the backend keeps this: a model's answer comes back in the next request as text, and that text, tokenized
 * again, is not always the tokens the model sampled (a model may write a word in other pieces than the tokenizer
 * would cut it, bytes no character completes come back as U+FFFD). Matching the new prompt's text against the text a
 * sequence spells finds the answer's tokens however they were cut ({@link PrefixCachePolicy}).
 */
public record Spelling(String text, int[] ends, boolean[] clean) {
    /** No tokens. */
    static final Spelling NONE = new Spelling("", new int[] {0}, new boolean[] {true});

    public Spelling {
        if (ends.length != clean.length || ends.length == 0 || ends[0] != 0) {
            throw new IllegalArgumentException("a spelling starts at 0 with one end per token boundary");
        }
        ends = ends.clone();
        clean = clean.clone();
    }

    /** How many tokens it spells. */
    int tokens() {
        return ends.length - 1;
    }

    /** The text after the first {@code i} tokens, where that is a clean cut; -1 where it is not. */
    int cut(int i) {
        return clean[i] ? ends[i] : -1;
    }

    /** The text the token at {@code i} adds (part of a character waits for the token that completes it). */
    String textOf(int i) {
        return text.substring(ends[i], ends[i + 1]);
    }

    /** Tokens whose text is of no use: a background task's, which no later prompt matches by text. */
    static Spelling blank(int tokens) {
        boolean[] clean = new boolean[tokens + 1];
        clean[0] = true;
        return new Spelling("", new int[tokens + 1], clean);
    }

    /**
     * {@code tokens} spelt by their pieces (special tokens as their text, as the chat template writes them), the
     * first {@code known} of them as {@code prefix} spells them already (its cut there must be clean).
     */
    static Spelling of(int[] tokens, Spelling prefix, int known, IntFunction<byte[]> piece) {
        if (known > prefix.tokens() || known > tokens.length || !prefix.clean[known]) {
            throw new IllegalArgumentException("the known part must end at a clean cut of the prefix");
        }
        int[] ends = Arrays.copyOf(prefix.ends, tokens.length + 1);
        boolean[] clean = Arrays.copyOf(prefix.clean, tokens.length + 1);
        StringBuilder text = new StringBuilder(prefix.text.substring(0, prefix.ends[known]));
        Utf8Pieces utf8 = new Utf8Pieces();
        for (int i = known; i < tokens.length; i++) {
            text.append(utf8.add(piece.apply(tokens[i])));
            ends[i + 1] = text.length();
            clean[i + 1] = utf8.whole();
        }
        if (!utf8.whole()) {
            // bytes no character completes: the prompt's text cannot end inside a character, so this never matches
            text.append(utf8.flush());
            ends[tokens.length] = text.length();
        }
        return new Spelling(text.toString(), ends, clean);
    }
}
