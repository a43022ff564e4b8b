package io.rkllm.server.pipeline.output;

import java.util.SplittableRandom;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.Supplier;
import java.util.random.RandomGenerator;

/**
 * Generates tool call ids: OpenAI's ({@code call_} followed by 24 random alphanumerics), or those of a family whose
 * template checks them (Mistral's: 9 alphanumerics).
 */
public final class ToolCallIds {

    static final String PREFIX = "call_";
    static final int RANDOM_LENGTH = 24;
    private static final String ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";

    private final Supplier<RandomGenerator> random;
    private final String prefix;
    private final int length;

    private ToolCallIds(Supplier<RandomGenerator> random, String prefix, int length) {
        this.random = random;
        this.prefix = prefix;
        this.length = length;
    }

    private ToolCallIds(Supplier<RandomGenerator> random) {
        this(random, PREFIX, RANDOM_LENGTH);
    }

    /** Unpredictable ids; safe to share between threads. */
    public static ToolCallIds random() {
        return new ToolCallIds(ThreadLocalRandom::current);
    }

    /** Unpredictable ids in a family's form. */
    public static ToolCallIds random(Syntax.CallIds form) {
        return switch (form) {
            case OPENAI -> random();
            case NINE_ALPHANUMERICS -> new ToolCallIds(ThreadLocalRandom::current, "", 9);
        };
    }

    /** The same sequence of ids for the same seed, for tests; not for use by several threads at once. */
    public static ToolCallIds seeded(long seed) {
        SplittableRandom generator = new SplittableRandom(seed);
        return new ToolCallIds(() -> generator);
    }

    /**
     * An id a client gave, in the family's form: itself when it has the form, else the same 9 alphanumerics every
     * time (a digest), so that a call and its result still name each other.
     */
    public static String inForm(String id, Syntax.CallIds form) {
        if (form == Syntax.CallIds.OPENAI || id.matches("[A-Za-z0-9]{9}")) {
            return id;
        }
        byte[] digest;
        try {
            digest = java.security.MessageDigest.getInstance("SHA-256")
                    .digest(id.getBytes(java.nio.charset.StandardCharsets.UTF_8));
        } catch (java.security.NoSuchAlgorithmException e) {
            throw new IllegalStateException(e); // every JDK has SHA-256
        }
        char[] out = new char[9];
        for (int i = 0; i < out.length; i++) {
            out[i] = ALPHABET.charAt((digest[i] & 0xff) % ALPHABET.length());
        }
        return new String(out);
    }

    /** The next id. */
    public String next() {
        RandomGenerator generator = random.get();
        char[] id = new char[prefix.length() + length];
        prefix.getChars(0, prefix.length(), id, 0);
        for (int i = prefix.length(); i < id.length; i++) {
            id[i] = ALPHABET.charAt(generator.nextInt(ALPHABET.length()));
        }
        return new String(id);
    }
}
