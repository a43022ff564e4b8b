package io.rkllm.tools.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import java.io.IOException;
import java.io.PrintStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.OptionalDouble;
import java.util.OptionalInt;

/**
 * Replays one long chat ({@link LongChatScript}) that outgrows the model's context, one turn after the other as a
 * user would, and reports per turn what the runtime prefilled, what it reused from the KV cache, how many earlier
 * messages the server left out ({@code X-RKLLM-Context-Trimmed}), the minimum a perfect cache would prefill (the
 * new message in its chat template, the system prompt once) and the time to the first streamed token. The
 * totals say how far the chat's prefill is from the minimum, how many turns resent their history, and how much
 * of the conversation the model still saw.
 */
public final class LongChatBench {
    private static final ObjectMapper JSON = new ObjectMapper();

    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();
    private final URI base;
    private final String model;
    private final PrintStream out;
    private final boolean limitAnswers;

    /**
     * One measured turn.
     *
     * @param seen the prompt tokens the model saw (reused + prefilled): how much of the chat it still had
     * @param leftOut earlier messages the server left out (0 when the whole chat fitted)
     */
    public record Turn(int turn, int message, int answer, int prefilled, int reused, int leftOut, int minimum,
                       int seen, double ttftMillis) {
        /** The turn prefilled more than its new message: history went to the runtime again. */
        boolean resent() {
            return prefilled > minimum;
        }
    }

    /** The whole chat. */
    public record Result(List<Turn> turns, int contextLength) {
        int prefilled() {
            return turns.stream().mapToInt(Turn::prefilled).sum();
        }

        int minimum() {
            return turns.stream().mapToInt(Turn::minimum).sum();
        }

        long resends() {
            return turns.stream().filter(Turn::resent).count();
        }

        /** The longest run of consecutive turns that all resent their history. */
        int longestResendRun() {
            int longest = 0;
            int run = 0;
            for (Turn t : turns) {
                run = t.resent() ? run + 1 : 0;
                longest = Math.max(longest, run);
            }
            return longest;
        }

        /** The first turn that left messages out; 0 when none did. */
        int firstTrimmed() {
            return turns.stream().filter(t -> t.leftOut() > 0).mapToInt(Turn::turn).findFirst().orElse(0);
        }

        /** Mean prompt tokens the model saw from the first trimmed turn on. */
        double meanSeenAfterTrim() {
            int first = firstTrimmed();
            return turns.stream().filter(t -> first > 0 && t.turn() >= first).mapToInt(Turn::seen).average().orElse(0);
        }

        /** Each follow-up's share of the previous answer found in the cache. */
        List<OptionalDouble> answerReuse() {
            List<OptionalDouble> shares = new ArrayList<>();
            for (int i = 0; i < turns.size(); i++) {
                Turn before = i == 0 ? null : turns.get(i - 1);
                shares.add(before == null ? OptionalDouble.empty()
                        : AnswerReuse.of(before.seen(), before.answer(), turns.get(i).reused()));
            }
            return shares;
        }

        /** The follow-ups' shares, of the turns that did not resend their history. */
        double[] incrementalAnswerReuse() {
            List<OptionalDouble> shares = answerReuse();
            return java.util.stream.IntStream.range(0, turns.size())
                    .filter(i -> shares.get(i).isPresent() && turns.get(i).leftOut() == turns.get(i - 1).leftOut())
                    .mapToDouble(i -> shares.get(i).getAsDouble()).toArray();
        }

        double medianTtft() {
            return percentile(50);
        }

        double maxTtft() {
            return turns.stream().skip(1).mapToDouble(Turn::ttftMillis).max().orElse(0);
        }

        /** The percentile of the times to first token, the first turn (which loads the model) left out. */
        double percentile(int p) {
            double[] t = turns.stream().skip(1).mapToDouble(Turn::ttftMillis).sorted().toArray();
            if (t.length == 0) {
                return 0;
            }
            return t[Math.min(t.length - 1, (int) Math.ceil(p / 100.0 * t.length) - 1)];
        }
    }

    public LongChatBench(URI base, String model, PrintStream out) {
        this(base, model, out, false);
    }

    /**
     * @param limitAnswers send each turn's answer length as {@code max_tokens}, for a model that does not read the
     *                     script's directives (a GGUF model)
     */
    public LongChatBench(URI base, String model, PrintStream out, boolean limitAnswers) {
        this.base = base;
        this.model = model;
        this.out = out;
        this.limitAnswers = limitAnswers;
    }

    public Result run(LongChatScript script) throws IOException, InterruptedException {
        ArrayNode messages = JSON.createArrayNode();
        messages.addObject().put("role", "system").put("content", script.system());
        List<Turn> turns = new ArrayList<>();
        int contextLength = contextLength();
        for (int i = 0; i < script.turns().size(); i++) {
            LongChatScript.Turn step = script.turns().get(i);
            messages.addObject().put("role", "user").put("content", step.message());
            long started = System.nanoTime();
            StreamedChat answer = StreamedChat.send(http, base, model, messages,
                    limitAnswers ? OptionalInt.of(step.answerTokens()) : OptionalInt.empty());
            int leftOut = answer.headers().firstValue("X-RKLLM-Context-Trimmed").map(LongChatBench::leadingNumber)
                    .orElse(0);
            int minimum = SimTokenCount.count(ConversationBench.PREFIX) + SimTokenCount.count(step.message())
                    + SimTokenCount.count(ConversationBench.POSTFIX);
            if (i == 0) {
                minimum += SimTokenCount.count("<|im_start|>system\n" + script.system() + "<|im_end|>\n");
            }
            int prefilled = answer.usage().at("/timings/prompt_n").asInt();
            int reused = answer.usage().at("/timings/cache_n").asInt();
            Turn turn = new Turn(i + 1, SimTokenCount.count(step.message()),
                    answer.usage().at("/usage/completion_tokens").asInt(), prefilled, reused, leftOut,
                    minimum, prefilled + reused, (answer.firstTokenNanos() - started) / 1e6);
            Turn before = turns.isEmpty() ? null : turns.getLast();
            turns.add(turn);
            out.printf(Locale.ROOT, "turn %2d  message %4d  answer %4d  prefilled %5d  reused %5d  answer reused %5s"
                            + "  left out %3d  minimum %4d  ttft %8.1f ms%s%n", turn.turn(), turn.message(),
                    turn.answer(), turn.prefilled(), turn.reused(), AnswerReuse.cell(before == null
                            ? OptionalDouble.empty() : AnswerReuse.of(before.seen(), before.answer(), turn.reused())),
                    turn.leftOut(), turn.minimum(), turn.ttftMillis(), turn.resent() ? "  resent" : "");
            messages.addObject().put("role", "assistant").put("content", answer.content());
        }
        return new Result(turns, contextLength);
    }

    /** Writes the result as a Markdown table and a summary. */
    public static String markdown(String title, Result r) {
        StringBuilder s = new StringBuilder();
        s.append("#### ").append(title).append("\n\n");
        s.append("| turn | message | answer | prefilled | reused | previous answer reused | left out | minimum |"
                + " time to first token |\n");
        s.append("|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
        List<OptionalDouble> shares = r.answerReuse();
        for (int i = 0; i < r.turns().size(); i++) {
            Turn t = r.turns().get(i);
            s.append(String.format(Locale.ROOT, "| %d | %d | %d | %s | %d | %s | %d | %d | %.0f ms |%n", t.turn(),
                    t.message(), t.answer(), t.resent() ? "**" + t.prefilled() + "**" : Integer.toString(t.prefilled()),
                    t.reused(), AnswerReuse.cell(shares.get(i)), t.leftOut(), t.minimum(), t.ttftMillis()));
        }
        s.append(String.format(Locale.ROOT, "| **total** | | | **%d** | | | | **%d** | |%n", r.prefilled(),
                r.minimum()));
        s.append('\n').append(summary(r)).append('\n');
        return s.toString();
    }

    /** The figures that matter, on one line. */
    public static String summary(Result r) {
        return String.format(Locale.ROOT, "Prefill %d tokens against a minimum of %d: **%.2fx**. Turns that resent"
                        + " history: %d of %d, at most %d in a row. First trimmed turn: %s; from there on the model saw"
                        + " %.0f prompt tokens on average (%.0f%% of the %d-token context). Time to first token"
                        + " (turns 2 on): median %.0f ms, p90 %.0f ms, max %.0f ms.",
                r.prefilled(), r.minimum(), (double) r.prefilled() / Math.max(1, r.minimum()), r.resends(),
                r.turns().size(), r.longestResendRun(), r.firstTrimmed() == 0 ? "none" : "turn " + r.firstTrimmed(),
                r.meanSeenAfterTrim(), 100 * r.meanSeenAfterTrim() / Math.max(1, r.contextLength()),
                r.contextLength(), r.medianTtft(), r.percentile(90), r.maxTtft())
                + " Previous answer reused, turns that did not leave more out: "
                + AnswerReuse.summary(r.incrementalAnswerReuse()) + ".";
    }


    /** The model's context length, from the model list. */
    private int contextLength() throws IOException, InterruptedException {
        HttpResponse<String> response = http.send(HttpRequest.newBuilder(base.resolve("/v1/models/" + model))
                .GET().build(), HttpResponse.BodyHandlers.ofString());
        return JSON.readTree(response.body()).path("context_length").asInt(0);
    }

    private static int leadingNumber(String header) {
        int end = 0;
        while (end < header.length() && Character.isDigit(header.charAt(end))) {
            end++;
        }
        return end == 0 ? 0 : Integer.parseInt(header.substring(0, end));
    }
}
