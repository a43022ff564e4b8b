package io.rkllm.tools.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.awt.Color;
import java.awt.GradientPaint;
import java.awt.Graphics2D;
import java.awt.image.BufferedImage;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Locale;
import java.util.stream.Stream;
import javax.imageio.ImageIO;

/**
 * Replays an Open WebUI picture chat against a running server: one question with a photo, then four text
 * follow-ups that resend the photo (Open WebUI sends every picture of a chat with every turn). Reports per turn
 * the encoder runs (from {@code /metrics}), the tokens prefilled and reused, the minimum a perfect cache would
 * prefill (the new message in its chat template; the first turn also its picture and the system prompt), their
 * ratio, and the time to the first streamed token.
 *
 * <p>The minimum is counted with the simulated runtime's tokenizer rule: run it against a server started with
 * {@code --simulate} (at RK3588 speeds unless RKLLM_SIM_TIME_SCALE says otherwise).
 */
public final class ImageBench {
    private static final ObjectMapper JSON = new ObjectMapper();
    static final String SYSTEM = "You are a helpful assistant who describes pictures precisely.";
    static final List<String> QUESTIONS = List.of("What is in this picture?", "Which colours dominate it?",
            "Is there any text in it?", "Describe the top left corner.", "Summarise it in one sentence.");

    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();
    private final URI base;
    private final String model;
    private final PrintStream out;

    /** One measured turn. */
    public record Turn(int turn, int encoderRuns, int prefilled, int reused, int minimum, double ttftMillis) {
        double ratio() {
            return minimum == 0 ? 0 : (double) prefilled / minimum;
        }
    }

    public ImageBench(URI base, String model, PrintStream out) {
        this.base = base;
        this.model = model;
        this.out = out;
    }

    /**
     * @param imageTokens tokens one picture takes (for the first turn's minimum)
     */
    public List<Turn> run(int imageTokens) throws IOException, InterruptedException {
        String photo = "data:image/jpeg;base64," + Base64.getEncoder().encodeToString(photo());
        ArrayNode messages = JSON.createArrayNode();
        messages.addObject().put("role", "system").put("content", SYSTEM);
        List<Turn> turns = new ArrayList<>();
        for (int i = 0; i < QUESTIONS.size(); i++) {
            String question = QUESTIONS.get(i);
            ObjectNode user = messages.addObject().put("role", "user");
            if (i == 0) {
                ArrayNode content = user.putArray("content");
                content.addObject().put("type", "text").put("text", question);
                content.addObject().put("type", "image_url").putObject("image_url").put("url", photo);
            } else {
                user.put("content", question);
            }
            double encodedBefore = encoderRuns();
            long started = System.nanoTime();
            StreamedChat answer = StreamedChat.send(http, base, model, messages);
            int minimum = SimTokenCount.count(ConversationBench.PREFIX) + SimTokenCount.count(question)
                    + SimTokenCount.count(ConversationBench.POSTFIX);
            if (i == 0) {
                minimum += SimTokenCount.count("<|im_start|>system\n" + SYSTEM + "<|im_end|>\n")
                        + SimTokenCount.count("<|vision_start|>") + SimTokenCount.count("<|vision_end|>") + imageTokens;
            }
            Turn turn = new Turn(i + 1, (int) Math.round(encoderRuns() - encodedBefore),
                    answer.usage().at("/timings/prompt_n").asInt(), answer.usage().at("/timings/cache_n").asInt(),
                    minimum, (answer.firstTokenNanos() - started) / 1e6);
            turns.add(turn);
            out.printf(Locale.ROOT, "turn %d  encoder runs %d  prefilled %5d  reused %5d  minimum %4d  ratio %5.2f"
                    + "  ttft %7.1f ms%n", turn.turn(), turn.encoderRuns(), turn.prefilled(), turn.reused(),
                    turn.minimum(), turn.ratio(), turn.ttftMillis());
            messages.addObject().put("role", "assistant").put("content", answer.content());
        }
        return turns;
    }

    /** The result as a Markdown table. */
    public static String markdown(String title, List<Turn> turns) {
        StringBuilder s = new StringBuilder("#### ").append(title).append("\n\n");
        s.append("| turn | encoder runs | prefilled | reused | minimum | ratio | time to first token |\n");
        s.append("|---:|---:|---:|---:|---:|---:|---:|\n");
        for (Turn t : turns) {
            s.append(String.format(Locale.ROOT, "| %d | %d | %d | %d | %d | %.2f | %.0f ms |%n", t.turn(),
                    t.encoderRuns(), t.prefilled(), t.reused(), t.minimum(), t.ratio(), t.ttftMillis()));
        }
        List<Turn> followUps = turns.subList(1, turns.size());
        s.append(String.format(Locale.ROOT, "%nFollow-ups: %d encoder runs, prefill %.2fx the new text.%n",
                followUps.stream().mapToInt(Turn::encoderRuns).sum(),
                followUps.stream().mapToInt(Turn::prefilled).sum()
                        / (double) followUps.stream().mapToInt(Turn::minimum).sum()));
        return s.toString();
    }

    /** A phone-sized photo stand-in: 1600 x 1200, gradients and shapes (JPEG, about 100 KB). */
    static byte[] photo() throws IOException {
        BufferedImage image = new BufferedImage(1600, 1200, BufferedImage.TYPE_INT_RGB);
        Graphics2D g = image.createGraphics();
        g.setPaint(new GradientPaint(0, 0, new Color(40, 90, 160), 1600, 1200, new Color(240, 200, 120)));
        g.fillRect(0, 0, 1600, 1200);
        g.setColor(new Color(30, 130, 60));
        g.fillOval(200, 500, 600, 500);
        g.setColor(Color.WHITE);
        g.fillRect(900, 200, 500, 300);
        g.dispose();
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        ImageIO.write(image, "jpeg", bytes);
        return bytes.toByteArray();
    }

    private double encoderRuns() throws IOException, InterruptedException {
        HttpResponse<Stream<String>> response = http.send(HttpRequest.newBuilder(base.resolve("/metrics")).GET()
                .build(), HttpResponse.BodyHandlers.ofLines());
        if (response.statusCode() != 200) {
            throw new IOException("GET /metrics answered " + response.statusCode() + ": the bench counts encoder runs"
                    + " there (metrics.enabled)");
        }
        return response.body().filter(l -> l.startsWith("rkllm_vision_images_total{")
                        && l.contains("model=\"" + model + "\"") && l.contains("source=\"encoder\""))
                .mapToDouble(l -> Double.parseDouble(l.substring(l.lastIndexOf(' ') + 1))).sum();
    }

}
