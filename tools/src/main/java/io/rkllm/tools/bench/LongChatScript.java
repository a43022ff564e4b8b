package io.rkllm.tools.bench;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

/**
 * One long chat for {@code bench long-chat}: a system prompt and user messages of realistic, varied lengths (a
 * one-line question, a paragraph, now and then a pasted page), each asking the simulated runtime for an answer of
 * a given length with its {@code [[tokens:N]]} directive. The same seed gives the same chat, so runs compare.
 *
 * @param turns each user message with the answer length it asks for
 */
record LongChatScript(String system, List<Turn> turns) {
    /** The measured chat: over 40 turns, user messages of 178 tokens and answers of 122 on average. */
    static final long SEED = 17;

    private static final String[] WORDS = {"the", "board", "runs", "a", "small", "model", "on", "its", "NPU", "and",
        "I", "would", "like", "to", "know", "whether", "memory", "is", "enough", "for", "two", "chats", "at", "once",
        "when", "context", "grows", "past", "four", "thousand", "tokens", "with", "answers", "that", "stay", "short",
        "because", "cooling", "matters", "during", "long", "sessions", "in", "summer", "so", "please", "explain",
        "what", "happens", "to", "earlier", "messages", "after", "hours", "of", "talk", "about", "kernels",
        "drivers", "quantisation", "speed", "power", "fans", "cases", "heat", "sinks", "storage", "cards", "logs"};

    /** One user turn: the message (directive included) and the answer length it asks for. */
    record Turn(String message, int answerTokens) {
    }

    /** A chat of {@code count} turns. */
    static LongChatScript generate(int count, long seed) {
        SplittableRandom random = new SplittableRandom(seed);
        List<Turn> turns = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            int size = random.nextInt(20);
            // mostly a question or a paragraph, sometimes a pasted page
            int tokens = size < 8 ? random.nextInt(30, 90) : size < 17 ? random.nextInt(110, 230)
                    : random.nextInt(280, 420);
            int answer = random.nextInt(60, 190);
            turns.add(new Turn(text(random, tokens, i + 1) + " [[tokens:" + answer + "]]", answer));
        }
        return new LongChatScript("You are a patient assistant for people who run language models on small"
                + " boards at home. Answer clearly and keep to the point.", List.copyOf(turns));
    }

    /** Sentences of filler words until the simulated tokenizer counts about {@code tokens}. */
    private static String text(SplittableRandom random, int tokens, int turn) {
        StringBuilder s = new StringBuilder("Turn ").append(turn).append(':');
        int words = 0;
        while (SimTokenCount.count(s.toString()) < tokens) {
            s.append(' ').append(WORDS[random.nextInt(WORDS.length)]);
            if (++words % 12 == 0) {
                s.append(random.nextBoolean() ? '.' : '?');
            }
        }
        return s.append('.').toString();
    }
}
