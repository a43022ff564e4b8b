package io.rkllm.server.pipeline.output;

import java.util.SplittableRandom;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.Supplier;
import java.util.random.RandomGenerator;

/** Generates OpenAI-style tool call ids: {@code call_} followed by 24 random alphanumerics. */
public final class ToolCallIds {

    static final String PREFIX = "call_";
    static final int RANDOM_LENGTH = 24;
    private static final String ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";

    private final Supplier<RandomGenerator> random;

    private ToolCallIds(Supplier<RandomGenerator> random) {
        this.random = random;
    }

    /** Unpredictable ids; safe to share between threads. */
    public static ToolCallIds random() {
        return new ToolCallIds(ThreadLocalRandom::current);
    }

    /** The same sequence of ids for the same seed, for tests; not for use by several threads at once. */
    public static ToolCallIds seeded(long seed) {
        SplittableRandom generator = new SplittableRandom(seed);
        return new ToolCallIds(() -> generator);
    }

    /** The next id. */
    public String next() {
        RandomGenerator generator = random.get();
        char[] id = new char[PREFIX.length() + RANDOM_LENGTH];
        PREFIX.getChars(0, PREFIX.length(), id, 0);
        for (int i = PREFIX.length(); i < id.length; i++) {
            id[i] = ALPHABET.charAt(generator.nextInt(ALPHABET.length()));
        }
        return new String(id);
    }
}
