package io.rkllm.tools.bench;

import java.io.IOException;
import java.io.PrintStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * {@code bench versus}: one workload against two OpenAI-compatible servers, this one and another (a llama-server
 * built from the same llama.cpp source, say). Each part of the workload runs on the servers in turns A B B A before
 * the next part starts, so that a machine whose speed drifts moves both alike: the two servers' samples of a part
 * are taken seconds apart, and compared in pairs (A's first with B's first, B's second with A's second). The parts,
 * all greedy, at most {@code tokens} tokens an answer:
 * <ol>
 * <li>one chat (the same question every turn): its decode rate, and its answer, to see whether it is the same every
 *     time;</li>
 * <li>its follow-up, a question new each turn: the time to its first token, what a server's cache of the conversation
 *     saves (a follow-up asked again would be restored whole by llama-server's cache of earlier prompts in RAM);</li>
 * <li>a long prompt no server has seen (the turn's number first; the two samples of a pair send the same texts, as
 *     in every part): the prefill rate, its tokens over the time to the
 *     first token;</li>
 * <li>four chats at once (the same four questions every turn): the decode rate of all four while all four decode,
 *     all their tokens over the wall time until the last ends (answers of other lengths compare), their answers;</li>
 * <li>four long prompts no server has seen, sent together: when each first token comes (the slowest is what a user
 *     of the last waits).</li>
 * </ol>
 */
final class SideBySide {
    /** A server: what the table calls it, its base URL, the model asked for. */
    record Target(String label, URI url, String model) {
    }

    /** @param rounds rounds of A B B A; @param tokens each answer's limit; @param promptWords a long prompt's words */
    record Plan(int rounds, int tokens, int promptWords) {
        static Plan defaults() {
            return new Plan(2, 128, 300);
        }
    }

    /** What each turn against one server measured, in order. */
    record Samples(List<Double> oneDecode, List<Double> followUpFirstToken, List<Double> prefillRate,
                   List<Double> fourDecode, List<Double> fourOverall, List<Double> fourLongSlowestFirst,
                   List<Double> fourLongFastestFirst, List<String> oneAnswers, List<List<String>> fourAnswers) {
        Samples() {
            this(new ArrayList<>(), new ArrayList<>(), new ArrayList<>(), new ArrayList<>(), new ArrayList<>(),
                    new ArrayList<>(), new ArrayList<>(), new ArrayList<>(), new ArrayList<>());
        }
    }

    record Result(Target other, Target ours, Plan plan, Samples otherSamples, Samples ourSamples) {
    }

    static final String ONE = "Write a short story about a lighthouse keeper who finds a message in a bottle.";
    /** New each turn from its first word: a server's cache of earlier prompts finds none of it. */
    static final String FOLLOW_UP = "Take %d: now tell the same story from the point of view of the bottle.";
    static final List<String> FOUR = List.of(
            "Explain in a few paragraphs how a bicycle stays upright while it moves.",
            "Write a recipe for a simple tomato soup, with the steps numbered.",
            "Describe a walk through a forest in autumn, in the present tense.",
            "List ten ideas for a rainy Sunday afternoon, each with one sentence on why.");
    private static final String[] WORDS = ("the quick brown fox jumps over a lazy dog while seven curious children"
            + " watch from the old stone bridge and the river carries autumn leaves past the mill toward the sea where"
            + " fishing boats return with their nets full of silver herring under a sky of drifting grey clouds").split(" ");

    private final PrintStream out;
    /** Drawn for each run of the bench: a long prompt of one run is not in a server's cache from another run. */
    private final long run;

    SideBySide(PrintStream out) {
        this(out, new java.security.SecureRandom().nextLong());
    }

    SideBySide(PrintStream out, long run) {
        this.out = out;
        this.run = run;
    }

    Result run(Target other, Target ours, Plan plan) throws IOException, InterruptedException {
        Samples a = new Samples();
        Samples b = new Samples();
        // a first turn of every part each, not counted: models loaded, code compiled, caches as they are in use
        for (Part part : Part.values()) {
            part(part, other, plan, -1, new Samples());
            part(part, ours, plan, -2, new Samples());
        }
        for (int round = 0; round < plan.rounds(); round++) {
            for (Part part : Part.values()) {
                for (int position = 0; position < 4; position++) {
                    boolean first = position == 0 || position == 3;
                    part(part, first ? other : ours, plan, turn(round, part, position), first ? a : b);
                }
            }
            // each server's two samples of the round: A's first, B's first, B's second, A's second
            int[] at = {2 * round, 2 * round, 2 * round + 1, 2 * round + 1};
            for (int i = 0; i < 4; i++) {
                boolean first = i == 0 || i == 3;
                Target t = first ? other : ours;
                Samples s = first ? a : b;
                out.printf(Locale.ROOT, "round %d, %s: one chat %.1f tokens/s, follow-up's first token %.3f s,"
                                + " prefill %.0f tokens/s, four chats %.1f tokens/s decoding, %.1f over their wall time,"
                                + " four long prompts' first tokens %.2f-%.2f s%n", round + 1, t.label(),
                        s.oneDecode().get(at[i]), s.followUpFirstToken().get(at[i]), s.prefillRate().get(at[i]),
                        s.fourDecode().get(at[i]), s.fourOverall().get(at[i]), s.fourLongFastestFirst().get(at[i]),
                        s.fourLongSlowestFirst().get(at[i]));
            }
        }
        return new Result(other, ours, plan, a, b);
    }

    /**
     * The turn whose prompts the part sends at {@code position} of A B B A in {@code round}: the two samples compared
     * in a pair (A's first with B's first, B's second with A's second) send the same texts, each new to the server
     * it goes to, so that what a pair's ratio measures is the server alone, not one prompt's length or answer
     * against another's.
     */
    static int turn(int round, Part part, int position) {
        return 2 * (round * Part.values().length + part.ordinal()) + (position < 2 ? 0 : 1);
    }

    /** The workload's parts, each run on both servers in turns before the next. */
    enum Part {
        ONE_CHAT_AND_FOLLOW_UP, LONG_PROMPT, FOUR_CHATS, FOUR_LONG_PROMPTS
    }

    /**
     * One part on one server, on connections of its own: a server's HTTP library may close a connection left idle
     * while the other server has its turn (llama-server's after 5 s), and a request sent on it gets no answer.
     */
    private void part(Part part, Target t, Plan plan, int turn, Samples s) throws IOException, InterruptedException {
        try (HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
                .connectTimeout(Duration.ofSeconds(10)).build()) {
            switch (part) {
                case ONE_CHAT_AND_FOLLOW_UP -> oneChat(http, t, plan, turn, s);
                case LONG_PROMPT -> {
                    TimedChat prefill = TimedChat.send(http, t.url(), t.model(), List.of(),
                            longPrompt(run, turn, 0, plan), 4);
                    s.prefillRate().add(prefill.prefillRate());
                }
                case FOUR_CHATS -> fourChats(http, t, plan, s);
                case FOUR_LONG_PROMPTS -> fourLongPrompts(http, t, plan, turn, s);
            }
        }
    }

    private void oneChat(HttpClient http, Target t, Plan plan, int turn, Samples s)
            throws IOException, InterruptedException {
        TimedChat one = TimedChat.send(http, t.url(), t.model(), List.of(), ONE, plan.tokens());
        s.oneDecode().add(one.decodeRate());
        s.oneAnswers().add(one.text());
        TimedChat followUp = TimedChat.send(http, t.url(), t.model(), List.of(ONE, one.text()),
                String.format(java.util.Locale.ROOT, FOLLOW_UP, Math.floorMod(run + turn, 1000) + 3), plan.tokens());
        s.followUpFirstToken().add(followUp.firstTokenSeconds());
    }

    private void fourChats(HttpClient http, Target t, Plan plan, Samples s) throws IOException, InterruptedException {
        List<TimedChat> four = together(http, t, FOUR, plan.tokens());
        s.fourDecode().add(whileAllDecode(four));
        long sent = four.stream().mapToLong(TimedChat::sent).min().orElseThrow();
        double wall = (four.stream().mapToLong(TimedChat::end).max().orElseThrow() - sent) / 1e9;
        s.fourOverall().add(four.stream().mapToInt(TimedChat::tokens).sum() / wall);
        s.fourAnswers().add(four.stream().map(TimedChat::text).toList());
    }

    private void fourLongPrompts(HttpClient http, Target t, Plan plan, int turn, Samples s)
            throws IOException, InterruptedException {
        List<String> long4 = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            long4.add(longPrompt(run, turn, i + 1, plan));
        }
        List<TimedChat> prompts = together(http, t, long4, 8);
        long start = prompts.stream().mapToLong(TimedChat::sent).min().orElseThrow();
        double[] firsts = prompts.stream().mapToDouble(c -> (c.chunks().length == 0 ? c.end() : c.chunks()[0]) - start)
                .map(n -> n / 1e9).sorted().toArray();
        s.fourLongFastestFirst().add(firsts[0]);
        s.fourLongSlowestFirst().add(firsts[firsts.length - 1]);
    }

    /** The messages sent at the same moment, each on a thread of its own. */
    private static List<TimedChat> together(HttpClient http, Target t, List<String> messages, int tokens)
            throws IOException, InterruptedException {
        CountDownLatch go = new CountDownLatch(1);
        try (var pool = Executors.newVirtualThreadPerTaskExecutor()) {
            List<Future<TimedChat>> sent = new ArrayList<>();
            for (String m : messages) {
                sent.add(pool.submit(() -> {
                    go.await();
                    return TimedChat.send(http, t.url(), t.model(), List.of(), m, tokens);
                }));
            }
            go.countDown();
            List<TimedChat> done = new ArrayList<>();
            for (Future<TimedChat> f : sent) {
                try {
                    done.add(f.get());
                } catch (ExecutionException e) {
                    if (e.getCause() instanceof IOException io) {
                        throw io;
                    }
                    throw new IOException(e.getCause());
                }
            }
            return done;
        }
    }

    /**
     * Tokens of all the answers while all of them decode: each answer's text chunks between the last first token and
     * the first last token, counted as tokens at that answer's own tokens to chunks (a server holds back the bytes of
     * a character split across tokens, so a chunk may carry several), over that time.
     */
    static double whileAllDecode(List<TimedChat> chats) {
        long from = chats.stream().mapToLong(c -> c.chunks().length == 0 ? Long.MAX_VALUE : c.chunks()[0]).max()
                .orElseThrow();
        long to = chats.stream().mapToLong(TimedChat::end).min().orElseThrow();
        if (to <= from) {
            return Double.NaN;
        }
        double tokens = 0;
        for (TimedChat c : chats) {
            long n = Arrays.stream(c.chunks()).filter(x -> x > from && x <= to).count();
            double perChunk = c.chunks().length < 2 ? 1 : (c.tokens() - 1) / (double) (c.chunks().length - 1);
            tokens += n * perChunk;
        }
        return tokens / ((to - from) / 1e9);
    }

    /** A prompt of the plan's words that no server has seen: the run, the turn and the prompt's number first. */
    static String longPrompt(long run, int turn, int index, Plan plan) {
        StringBuilder b = new StringBuilder("Run ").append(Long.toHexString(run)).append(", turn ").append(turn)
                .append(", text ").append(index).append(". Summarise this text in one sentence:");
        // words drawn anew for each prompt: no two share more than their first words, which a server's prompt cache
        // would otherwise find
        java.util.SplittableRandom words = new java.util.SplittableRandom(run ^ (turn * 1_000_003L + index));
        for (int i = 0; i < plan.promptWords(); i++) {
            b.append(' ').append(WORDS[words.nextInt(WORDS.length)]);
        }
        return b.toString();
    }
}
