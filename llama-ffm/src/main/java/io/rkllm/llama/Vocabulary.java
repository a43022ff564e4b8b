package io.rkllm.llama;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;

/**
 * A loaded model's vocabulary ({@code llama_vocab}): text to tokens and back, each token's piece, the special tokens.
 * Native calls for the model's owner thread; every call fails once the model is closed.
 */
public final class Vocabulary {
    private static final long MAX_TEXT = 1 << 20;

    private final NativeLlama api;
    private final MemorySegment vocab;
    /** Throws once the model is closed. */
    private final Runnable live;
    private int vocabularySize = -1;
    private TokenText tokenText;
    /**
     * Whether each token ends a generation, asked of llama.cpp once per token and kept: a decode asks it of every
     * token it samples. 0: not asked yet, 1: no, 2: yes (a byte written by any thread is whole when read).
     */
    private volatile byte[] endsGeneration;

    Vocabulary(NativeLlama api, MemorySegment vocab, Runnable live) {
        this.api = api;
        this.vocab = vocab;
        this.live = live;
    }

    /** The native vocabulary, while the model is open. */
    MemorySegment segment() {
        live.run();
        return vocab;
    }

    /**
     * The tokens of {@code text}. {@code addSpecial} adds the model's BOS where it wants one; {@code parseSpecial}
     * turns the text of special tokens ({@code <|im_start|>}) into those tokens instead of plain text.
     */
    public int[] tokenize(String text, boolean addSpecial, boolean parseSpecial) {
        byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment utf8 = arena.allocate(Math.max(1, bytes.length));
            MemorySegment.copy(bytes, 0, utf8, JAVA_BYTE, 0, bytes.length);
            int capacity = bytes.length + 8;
            while (true) {
                MemorySegment out = arena.allocate(JAVA_INT, capacity);
                int n = (int) api.call("llama_tokenize", segment(), utf8, bytes.length, out, capacity, addSpecial,
                        parseSpecial);
                if (n >= 0) {
                    return out.asSlice(0, (long) n * Integer.BYTES).toArray(JAVA_INT);
                }
                if (n == Integer.MIN_VALUE || -n <= capacity) {
                    throw new LlamaException("llama_tokenize failed (" + n + ") for a text of " + bytes.length + " bytes");
                }
                capacity = -n;
            }
        }
    }

    /**
     * A reranker's input for one (query, document) pair, framed as llama-server frames it
     * ({@code BOS query EOS SEP document EOS}, each text tokenized without special tokens added, and a missing
     * special token left out): what a cross-encoder such as bge-reranker reads, scored by rank pooling.
     */
    public int[] rerankPair(String query, String document) {
        return rerankPair(query, document, Integer.MAX_VALUE);
    }

    /**
     * The pair, its document's tokens cut so that the whole is at most {@code maxTokens} long (a long passage is
     * scored by its beginning). The query is never cut: when it leaves no room for a document token, the pair is
     * longer than {@code maxTokens} and the caller refuses it.
     */
    public int[] rerankPair(String query, String document, int maxTokens) {
        int[] q = tokenize(query, false, true);
        int[] whole = tokenize(document, false, true);
        int framing = (bos() >= 0 ? 1 : 0) + (eos() >= 0 ? 2 : 0) + (sep() >= 0 ? 1 : 0);
        long room = Math.max(1L, (long) maxTokens - q.length - framing);
        int[] d = whole.length > room ? Arrays.copyOf(whole, (int) room) : whole;
        int[] out = new int[q.length + d.length + 4];
        int n = 0;
        n = put(out, n, bos());
        System.arraycopy(q, 0, out, n, q.length);
        n += q.length;
        n = put(out, n, eos());
        n = put(out, n, sep());
        System.arraycopy(d, 0, out, n, d.length);
        n += d.length;
        n = put(out, n, eos());
        return Arrays.copyOf(out, n);
    }

    private static int put(int[] tokens, int at, int token) {
        if (token < 0) {
            return at;
        }
        tokens[at] = token;
        return at + 1;
    }

    /**
     * The bytes of one token's piece (a byte-level token may be part of a UTF-8 character: join the bytes of
     * consecutive tokens before decoding). {@code special} renders special tokens' text instead of nothing.
     */
    public byte[] tokenToPiece(int token, boolean special) {
        return pieces(new int[] {token}, special).getFirst();
    }

    /** The bytes of each token's piece ({@link #tokenToPiece}), in one go: one buffer for them all. */
    public List<byte[]> pieces(int[] tokens, boolean special) {
        for (int token : tokens) {
            checkToken(token);
        }
        List<byte[]> pieces = new ArrayList<>(tokens.length);
        try (Arena arena = Arena.ofConfined()) {
            int capacity = 64;
            MemorySegment out = arena.allocate(capacity);
            for (int i = 0; i < tokens.length; ) {
                int n = (int) api.call("llama_token_to_piece", segment(), tokens[i], out, capacity, 0, special);
                if (n >= 0) {
                    pieces.add(out.asSlice(0, n).toArray(JAVA_BYTE));
                    i++;
                } else if (-n <= capacity || -n > MAX_TEXT) {
                    throw new LlamaException("llama_token_to_piece failed (" + n + ") for token " + tokens[i]);
                } else {
                    capacity = -n;
                    out = arena.allocate(capacity);
                }
            }
        }
        return pieces;
    }

    /** The text of {@code tokens}; {@code renderSpecial} writes special tokens' text, else they are left out. */
    public String detokenize(int[] tokens, boolean renderSpecial) {
        for (int token : tokens) {
            checkToken(token);
        }
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment in = arena.allocateFrom(JAVA_INT, tokens.length == 0 ? new int[] {0} : tokens);
            int capacity = tokens.length * 8 + 16;
            while (true) {
                MemorySegment out = arena.allocate(capacity);
                int n = (int) api.call("llama_detokenize", segment(), in, tokens.length, out, capacity,
                        !renderSpecial, renderSpecial);
                if (n >= 0) {
                    return new String(out.asSlice(0, n).toArray(JAVA_BYTE), StandardCharsets.UTF_8);
                }
                if (-n <= capacity || -n > MAX_TEXT * 16) {
                    throw new LlamaException("llama_detokenize failed (" + n + ")");
                }
                capacity = -n;
            }
        }
    }

    /** How many tokens it has. */
    public int size() {
        if (vocabularySize < 0) {
            vocabularySize = (int) api.call("llama_vocab_n_tokens", segment());
        }
        return vocabularySize;
    }

    /** Each token's text, for sampling under a grammar: built on first use (one call per token). */
    TokenText tokenText() {
        live.run();
        if (tokenText == null) {
            tokenText = TokenText.of(size(), this::isEndOfGeneration, this::isControl, t -> tokenToPiece(t, false));
        }
        return tokenText;
    }

    /** llama.cpp looks tokens up with {@code at()}: one outside the vocabulary throws through C and ends the process. */
    void checkToken(int token) {
        if (token < 0 || token >= size()) {
            throw new IllegalArgumentException("token " + token + " is outside the vocabulary of " + size());
        }
    }

    /** The beginning-of-sequence token, or -1 when the model has none. */
    public int bos() {
        return (int) api.call("llama_vocab_bos", segment());
    }

    /** The end-of-sequence token, or -1. */
    public int eos() {
        return (int) api.call("llama_vocab_eos", segment());
    }

    /** The separator token (BERT's {@code [SEP]}, which rerankers read between a query and a document), or -1. */
    public int sep() {
        return api.has("llama_vocab_sep") ? (int) api.call("llama_vocab_sep", segment()) : -1;
    }

    /**
     * The fill-in-the-middle tokens, prefix, suffix and middle (Qwen2.5-Coder's {@code <|fim_prefix|>}, CodeLlama's
     * {@code <PRE>}...), as llama.cpp finds them in the metadata or among the tokens' texts; empty when the model lacks
     * one of them (or the library predates them).
     */
    public Optional<FimTokens> fillInTheMiddle() {
        if (!api.has("llama_vocab_fim_pre")) {
            return Optional.empty();
        }
        FimTokens tokens = new FimTokens((int) api.call("llama_vocab_fim_pre", segment()),
                (int) api.call("llama_vocab_fim_suf", segment()), (int) api.call("llama_vocab_fim_mid", segment()),
                optionalToken("llama_vocab_fim_rep"), optionalToken("llama_vocab_fim_sep"));
        return tokens.prefix() >= 0 && tokens.suffix() >= 0 && tokens.middle() >= 0 ? Optional.of(tokens)
                : Optional.empty();
    }

    private int optionalToken(String function) {
        return api.has(function) ? (int) api.call(function, segment()) : -1;
    }

    /**
     * The tokens a fill-in-the-middle prompt is made of: prefix, the text before; suffix, after; middle, the gap;
     * and, for a model trained on whole repositories (Qwen2.5-Coder), the repository's name and a file's start, or -1.
     */
    public record FimTokens(int prefix, int suffix, int middle, int repository, int fileSeparator) {
    }

    /** The end-of-turn token, or -1. */
    public int eot() {
        return (int) api.call("llama_vocab_eot", segment());
    }

    /** Whether the token ends a generation (EOS, EOT and the model's other end tokens). */
    public boolean isEndOfGeneration(int token) {
        checkToken(token);
        byte[] known = endsGeneration;
        if (known == null) {
            known = new byte[size()];
            endsGeneration = known;
        }
        byte answer = known[token];
        if (answer == 0) {
            answer = (boolean) api.call("llama_vocab_is_eog", segment(), token) ? (byte) 2 : (byte) 1;
            known[token] = answer;
        } else {
            live.run();
        }
        return answer == 2;
    }

    public boolean isControl(int token) {
        checkToken(token);
        return (boolean) api.call("llama_vocab_is_control", segment(), token);
    }

    /** Whether tokenizing with {@code addSpecial} prepends the BOS token. */
    public boolean addsBos() {
        return (boolean) api.call("llama_vocab_get_add_bos", segment());
    }
}
