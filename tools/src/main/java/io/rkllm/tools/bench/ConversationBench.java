package io.rkllm.tools.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
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
import java.util.concurrent.CompletableFuture;

/**
 * Replays an Open WebUI session against a running server: two chats of six turns each,
 * interleaved, each user turn preceded by query generation and followed by title, tags and
 * follow-up generation, as Open WebUI sends them. Reports, per chat turn, the tokens prefilled,
 * the minimum a perfect cache would prefill (the new user message in its chat template, plus each
 * chat's system prompt once), their ratio, and the time from the user's message (the query task
 * Open WebUI runs first included) to the first streamed token; and the prefill spent on the
 * background tasks.
 *
 * <p>The minimum is counted with the simulated runtime's tokenizer rule: run it against a server
 * started with {@code --simulate} (at RK3588 speeds unless RKLLM_SIM_TIME_SCALE says otherwise).
 */
public final class ConversationBench {
    private static final ObjectMapper JSON = new ObjectMapper();
    static final String PREFIX = "<|im_start|>user\n";
    static final String POSTFIX = "<|im_end|>\n<|im_start|>assistant\n";

    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();
    private final URI base;
    private final String model;
    private final PrintStream out;
    private final OptionalInt maxTokens;
    private final List<CompletableFuture<JsonNode>> backgroundTasks = new ArrayList<>();

    /**
     * One measured chat turn.
     *
     * @param answer the answer's tokens
     * @param answerReused the share of the chat's previous answer this turn found in the cache (empty on the first)
     */
    public record Turn(String chat, int turn, int prefilled, int cached, int minimum, double ttftMillis, int answer,
                       OptionalDouble answerReused) {
        double ratio() {
            return minimum == 0 ? 0 : (double) prefilled / minimum;
        }
    }

    /** The whole session. */
    public record Result(List<Turn> turns, int taskRequests, int taskPrefill) {
        int prefilled() {
            return turns.stream().mapToInt(Turn::prefilled).sum();
        }

        int minimum() {
            return turns.stream().mapToInt(Turn::minimum).sum();
        }

        /** The follow-ups' shares of the previous answer found in the cache. */
        double[] answerReuse() {
            return turns.stream().filter(t -> t.answerReused().isPresent())
                    .mapToDouble(t -> t.answerReused().getAsDouble()).toArray();
        }

        double medianFollowUpTtft() {
            double[] ttft = turns.stream().filter(t -> t.turn() > 1).mapToDouble(Turn::ttftMillis).sorted().toArray();
            return ttft.length == 0 ? 0 : ttft.length % 2 == 1 ? ttft[ttft.length / 2]
                    : (ttft[ttft.length / 2 - 1] + ttft[ttft.length / 2]) / 2;
        }
    }

    public ConversationBench(URI base, String model, PrintStream out) {
        this(base, model, out, OptionalInt.empty());
    }

    /**
     * @param maxTokens the answers' limit, for a model that does not end its answers when the script says (a GGUF
     *                  model: the simulated ones follow their directives)
     */
    public ConversationBench(URI base, String model, PrintStream out, OptionalInt maxTokens) {
        this.base = base;
        this.model = model;
        this.out = out;
        this.maxTokens = maxTokens;
    }

    public Result run() throws IOException, InterruptedException {
        List<ChatScript> chats = ChatScript.session();
        List<ArrayNode> histories = new ArrayList<>();
        for (ChatScript chat : chats) {
            ArrayNode messages = JSON.createArrayNode();
            messages.addObject().put("role", "system").put("content", chat.system());
            histories.add(messages);
        }
        List<Turn> turns = new ArrayList<>();
        Turn[] previous = new Turn[chats.size()];
        int rounds = chats.getFirst().questions().size();
        for (int round = 0; round < rounds; round++) {
            for (int c = 0; c < chats.size(); c++) {
                ChatScript chat = chats.get(c);
                ArrayNode messages = histories.get(c);
                String question = chat.questions().get(round);
                messages.addObject().put("role", "user").put("content", question);
                // Open WebUI waits for the search queries before it sends the chat request: the user waits
                // for both, so the time to first token counts from here
                long started = System.nanoTime();
                background(OpenWebUiTasks.queries(messages)).join();
                StreamedChat answer = StreamedChat.send(http, base, model, messages, maxTokens);
                int minimum = SimTokenCount.count(PREFIX) + SimTokenCount.count(question)
                        + SimTokenCount.count(POSTFIX);
                if (round == 0) {
                    minimum += SimTokenCount.count("<|im_start|>system\n" + chat.system() + "<|im_end|>\n");
                }
                int cached = answer.usage().at("/timings/cache_n").asInt();
                Turn before = previous[c];
                Turn turn = new Turn(chat.name(), round + 1, answer.usage().at("/timings/prompt_n").asInt(), cached,
                        minimum, (answer.firstTokenNanos() - started) / 1e6,
                        answer.usage().at("/usage/completion_tokens").asInt(), before == null ? OptionalDouble.empty()
                        : AnswerReuse.of(before.prefilled() + before.cached(), before.answer(), cached));
                turns.add(turn);
                previous[c] = turn;
                out.printf(Locale.ROOT, "%-6s turn %d  prefilled %5d  cached %5d  minimum %4d  ratio %5.2f  answer %4d"
                                + "  answer reused %5s  ttft %7.1f ms%n", turn.chat(), turn.turn(), turn.prefilled(),
                        turn.cached(), turn.minimum(), turn.ratio(), turn.answer(),
                        AnswerReuse.cell(turn.answerReused()), turn.ttftMillis());
                messages.addObject().put("role", "assistant").put("content", answer.content());
                if (round == 0) {
                    background(OpenWebUiTasks.title(messages));
                }
                background(OpenWebUiTasks.tags(messages));
                background(OpenWebUiTasks.followUps(messages));
            }
        }
        int taskPrefill = 0;
        for (CompletableFuture<JsonNode> task : backgroundTasks) {
            JsonNode body = task.join();
            taskPrefill += body.at("/timings/prompt_n").asInt();
        }
        return new Result(turns, backgroundTasks.size(), taskPrefill);
    }

    /** Writes the result as a Markdown table. */
    public static String markdown(String title, Result r) {
        StringBuilder s = new StringBuilder();
        s.append("#### ").append(title).append("\n\n");
        s.append("| chat | turn | prefilled | reused | minimum | ratio | answer | previous answer reused |"
                + " time to first token |\n");
        s.append("|---|---:|---:|---:|---:|---:|---:|---:|---:|\n");
        for (Turn t : r.turns()) {
            s.append(String.format(Locale.ROOT, "| %s | %d | %d | %d | %d | %.2f | %d | %s | %.0f ms |%n", t.chat(),
                    t.turn(), t.prefilled(), t.cached(), t.minimum(), t.ratio(), t.answer(),
                    AnswerReuse.cell(t.answerReused()), t.ttftMillis()));
        }
        s.append(String.format(Locale.ROOT, "| **total** | | **%d** | | **%d** | **%.2f** | | | median of follow-ups"
                        + " **%.0f ms** |%n", r.prefilled(), r.minimum(), (double) r.prefilled() / r.minimum(),
                r.medianFollowUpTtft()));
        s.append(String.format(Locale.ROOT, "%nBackground task requests: %d, prefill spent on them: %d tokens."
                + " Previous answer reused: %s.%n", r.taskRequests(), r.taskPrefill(),
                AnswerReuse.summary(r.answerReuse())));
        return s.toString();
    }


    private CompletableFuture<JsonNode> background(String taskPrompt) {
        ObjectNode body = JSON.createObjectNode().put("model", model).put("stream", false);
        body.putArray("messages").addObject().put("role", "user").put("content", taskPrompt);
        HttpRequest request = HttpRequest.newBuilder(base.resolve("/v1/chat/completions"))
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(body.toString())).build();
        CompletableFuture<JsonNode> task = http.sendAsync(request, HttpResponse.BodyHandlers.ofString()).thenApply(r -> {
            try {
                JsonNode node = JSON.readTree(r.body());
                if (r.statusCode() != 200) {
                    throw new IllegalStateException("task request failed: " + r.statusCode() + " " + r.body());
                }
                return node;
            } catch (IOException e) {
                throw new IllegalStateException(e);
            }
        });
        backgroundTasks.add(task);
        return task;
    }
}
