package io.rkllm.server.backend.echo;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.rkllm.server.app.EngineProviders;
import io.rkllm.server.app.Engines;
import io.rkllm.server.app.ServedModels;
import io.rkllm.server.app.ServerApp;
import io.rkllm.server.config.ConfigLoader;
import io.rkllm.server.config.ServerConfig;
import io.rkllm.server.engine.contract.EngineProvider;
import io.rkllm.server.engine.contract.EngineSetup;
import io.rkllm.server.models.DiscoveryResult;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import okhttp3.MediaType;
import okhttp3.OkHttpClient;
import okhttp3.Request;
import okhttp3.RequestBody;
import okhttp3.Response;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Adding an engine is one folder plus one entry in the list of providers (docs/architecture.md, "Adding an engine"):
 * the echo engine of this folder, added to {@link EngineProviders#all()} here as the application would add it, is
 * discovered, opened, loaded and served through every API family (OpenAI's chat, completions, responses, embeddings
 * and models; Ollama's; Anthropic's) by the server's own code, with no other file touched. The server is built the way
 * the application builds it: the providers, their discovery, their engines, the app.
 */
class ThirdEngineTest {
    private static final MediaType JSON = MediaType.get("application/json");
    private static final ObjectMapper MAPPER = new ObjectMapper();

    @TempDir
    static Path dir;
    static ServerApp app;
    static OkHttpClient client;

    @BeforeAll
    static void start() throws IOException {
        Path models = dir.resolve("models");
        Files.createDirectories(models.resolve("echo-chat"));
        Files.writeString(models.resolve("echo-chat").resolve("echo-chat.echo"), "any bytes");
        Files.createDirectories(models.resolve("echo-embed"));
        Files.writeString(models.resolve("echo-embed").resolve("echo-embed.echo"), "any bytes");
        Files.writeString(models.resolve("echo-embed").resolve("model.yaml"), "kind: embedding\n");
        List<EngineProvider> providers = new ArrayList<>(EngineProviders.all());
        providers.add(new EchoProvider()); // the one line an engine adds to the application

        // its setting, declared by its provider, set as any key is (its default is "say:")
        ServerConfig config = new ConfigLoader(dir, EngineProviders.settings(providers)).load(Optional.empty(),
                Map.of(), Map.of("server.port", "0", "logging.access_log", "false", "models.dir", models.toString(),
                        "engines.echo.prefix", "echo:")).config();

        EngineSetup setup = EngineSetup.of(config);
        DiscoveryResult discovery = EngineProviders.discovery(providers, setup).discover(models);
        assertThat(discovery.errors()).isEmpty();
        Engines engines = Engines.open(providers, setup, discovery.models()).requireFor(discovery.models());
        app = ServerApp.start(config, engines, ServedModels.fixed(discovery.catalog()));
        client = new OkHttpClient.Builder().readTimeout(Duration.ofSeconds(30)).build();
    }

    @AfterAll
    static void stop() {
        if (app != null) {
            app.stop(Duration.ofSeconds(5));
        }
        if (client != null) {
            client.dispatcher().executorService().shutdown();
            client.connectionPool().evictAll();
        }
    }

    private static String call(String method, String path, String json, int status) throws IOException {
        Request.Builder request = new Request.Builder().url("http://127.0.0.1:" + app.port() + path);
        if (json != null) {
            request.method(method, RequestBody.create(json, JSON));
        }
        try (Response r = client.newCall(request.build()).execute()) {
            String body = r.body().string();
            assertThat(r.code()).as(path + ": " + body).isEqualTo(status);
            return body;
        }
    }

    private static JsonNode post(String path, String json) throws IOException {
        return MAPPER.readTree(call("POST", path, json, 200));
    }

    private static JsonNode get(String path) throws IOException {
        return MAPPER.readTree(call("GET", path, null, 200));
    }

    /** The data of each {@code data:} line of an SSE stream, up to {@code [DONE]}. */
    private static List<JsonNode> events(String sse) throws IOException {
        List<JsonNode> events = new ArrayList<>();
        for (String line : sse.split("\n")) {
            if (line.startsWith("data: ") && !line.equals("data: [DONE]")) {
                events.add(MAPPER.readTree(line.substring(6)));
            }
        }
        return events;
    }

    @Test
    void theModelsListsNameTheEngineItsProviderGives() throws IOException {
        JsonNode models = get("/v1/models").get("data");
        assertThat(models.findValuesAsText("id")).contains("echo-chat", "echo-embed");
        for (JsonNode model : models) {
            assertThat(model.get("engine").asText()).as(model.get("id").asText()).isEqualTo("echo");
        }
        JsonNode tags = get("/api/tags").get("models");
        assertThat(tags.findValuesAsText("format")).containsOnly("echo");
        JsonNode shown = post("/api/show", "{\"model\":\"echo-chat\"}");
        assertThat(shown.at("/details/format").asText()).isEqualTo("echo");
    }

    @Test
    void openAiChatCompletionsAnswerWithTheEngine() throws IOException {
        JsonNode answer = post("/v1/chat/completions",
                "{\"model\":\"echo-chat\",\"messages\":[{\"role\":\"user\",\"content\":\"hello from a third engine\"}]}");
        assertThat(answer.at("/choices/0/message/content").asText()).isEqualTo("echo: hello from a third engine");
        assertThat(answer.at("/choices/0/finish_reason").asText()).isEqualTo("stop");
        assertThat(answer.at("/usage/completion_tokens").asInt()).isEqualTo(6);

        String sse = call("POST", "/v1/chat/completions", "{\"model\":\"echo-chat\",\"stream\":true,"
                + "\"messages\":[{\"role\":\"user\",\"content\":\"streamed words\"}]}", 200);
        StringBuilder text = new StringBuilder();
        events(sse).forEach(e -> text.append(e.at("/choices/0/delta/content").asText("")));
        assertThat(text).hasToString("echo: streamed words");
        assertThat(sse).endsWith("data: [DONE]\n\n");

        JsonNode cut = post("/v1/chat/completions", "{\"model\":\"echo-chat\",\"max_tokens\":2,"
                + "\"messages\":[{\"role\":\"user\",\"content\":\"one two three four\"}]}");
        assertThat(cut.at("/choices/0/message/content").asText()).isEqualTo("echo: one");
        assertThat(cut.at("/choices/0/finish_reason").asText()).isEqualTo("length");
    }

    @Test
    void legacyCompletionsAndTheResponsesApiAnswerWithTheEngine() throws IOException {
        JsonNode completion = post("/v1/completions", "{\"model\":\"echo-chat\",\"prompt\":\"complete me\"}");
        assertThat(completion.at("/choices/0/text").asText()).endsWith("complete me");
        JsonNode response = post("/v1/responses", "{\"model\":\"echo-chat\",\"input\":\"a response\"}");
        assertThat(response.at("/output/0/content/0/text").asText()).isEqualTo("echo: a response");
    }

    @Test
    void ollamasAndAnthropicsApisAnswerWithTheEngine() throws IOException {
        JsonNode chat = post("/api/chat", "{\"model\":\"echo-chat\",\"stream\":false,"
                + "\"messages\":[{\"role\":\"user\",\"content\":\"ollama chat\"}]}");
        assertThat(chat.at("/message/content").asText()).isEqualTo("echo: ollama chat");
        JsonNode generate = post("/api/generate", "{\"model\":\"echo-chat\",\"stream\":false,\"prompt\":\"gen\"}");
        assertThat(generate.get("response").asText()).isEqualTo("echo: gen");
        JsonNode message = post("/v1/messages", "{\"model\":\"echo-chat\",\"max_tokens\":50,"
                + "\"messages\":[{\"role\":\"user\",\"content\":\"anthropic\"}]}");
        assertThat(message.at("/content/0/text").asText()).isEqualTo("echo: anthropic");
        assertThat(message.get("stop_reason").asText()).isEqualTo("end_turn");
        JsonNode counted = post("/v1/messages/count_tokens", "{\"model\":\"echo-chat\","
                + "\"messages\":[{\"role\":\"user\",\"content\":\"anthropic\"}]}");
        assertThat(counted.get("input_tokens").asInt()).isPositive();
        assertThat(get("/api/ps").get("models").findValuesAsText("name")).contains("echo-chat:latest");
    }

    @Test
    void anEnginesLogprobsReachTheClientWholeAndStreamed() throws IOException {
        // the engine gives each token's log probability through its sink (the echo's are made up: 1/(n+1))
        String body = "{\"model\":\"echo-chat\",\"logprobs\":true,\"messages\":[{\"role\":\"user\","
                + "\"content\":\"<think> mulling </think> said\"}]";
        JsonNode whole = post("/v1/chat/completions", body + "}");
        JsonNode content = whole.at("/choices/0/logprobs/content");
        assertThat(content.findValuesAsText("token")).containsExactly("echo:", " <think>", " mulling", " </think>",
                " said");
        assertThat(content.get(4).get("logprob").asDouble()).isEqualTo(-Math.log(6));
        List<String> streamed = new ArrayList<>();
        for (JsonNode chunk : events(call("POST", "/v1/chat/completions", body + ",\"stream\":true}", 200))) {
            chunk.at("/choices/0/logprobs").path("content").forEach(t -> streamed.add(t.get("token").asText()));
        }
        assertThat(streamed).isEqualTo(content.findValuesAsText("token"));
    }

    @Test
    void everyFamilysStreamCarriesTheEnginesAnswer() throws IOException {
        StringBuilder anthropic = new StringBuilder();
        String messages = call("POST", "/v1/messages", "{\"model\":\"echo-chat\",\"max_tokens\":50,\"stream\":true,"
                + "\"messages\":[{\"role\":\"user\",\"content\":\"streamed to anthropic\"}]}", 200);
        events(messages).stream().filter(e -> e.path("type").asText().equals("content_block_delta"))
                .forEach(e -> anthropic.append(e.at("/delta/text").asText()));
        assertThat(anthropic).hasToString("echo: streamed to anthropic");
        assertThat(messages).contains("event: message_stop");

        StringBuilder responses = new StringBuilder();
        String response = call("POST", "/v1/responses", "{\"model\":\"echo-chat\",\"stream\":true,"
                + "\"input\":\"streamed response\"}", 200);
        events(response).stream().filter(e -> e.path("type").asText().equals("response.output_text.delta"))
                .forEach(e -> responses.append(e.get("delta").asText()));
        assertThat(responses).hasToString("echo: streamed response");
        assertThat(response).contains("event: response.completed");

        StringBuilder ollama = new StringBuilder();
        List<JsonNode> lines = new ArrayList<>();
        for (String line : call("POST", "/api/chat", "{\"model\":\"echo-chat\",\"messages\":[{\"role\":\"user\","
                + "\"content\":\"streamed to ollama\"}]}", 200).split("\n")) {
            lines.add(MAPPER.readTree(line));
        }
        lines.forEach(l -> ollama.append(l.at("/message/content").asText("")));
        assertThat(ollama).hasToString("echo: streamed to ollama");
        assertThat(lines.getLast().get("done").asBoolean()).isTrue();
        assertThat(lines.getLast().get("done_reason").asText()).isEqualTo("stop");
    }

    @Test
    void embeddingsComeFromTheEngineThroughOpenAisAndOllamasApis() throws IOException {
        JsonNode openai = post("/v1/embeddings", "{\"model\":\"echo-embed\",\"input\":\"abc cab\"}");
        JsonNode vector = openai.at("/data/0/embedding");
        assertThat(vector).hasSize(26);
        JsonNode ollama = post("/api/embed", "{\"model\":\"echo-embed\",\"input\":[\"abc cab\"]}");
        assertThat(ollama.at("/embeddings/0")).hasSize(26);
        // the words' rows pooled and normalised by the server: a, b and c weigh the same, the other letters nothing
        assertThat(vector.get(0).asDouble()).isPositive().isEqualTo(vector.get(2).asDouble());
        assertThat(vector.get(3).asDouble()).isZero();
        assertThat(ollama.at("/embeddings/0/0").asDouble()).isEqualTo(vector.get(0).asDouble(),
                org.assertj.core.api.Assertions.within(1e-6));
        JsonNode legacy = post("/api/embeddings", "{\"model\":\"echo-embed\",\"prompt\":\"abc cab\"}");
        assertThat(legacy.get("embedding")).hasSize(26);
        assertThat(legacy.at("/embedding/0").asDouble()).isEqualTo(vector.get(0).asDouble(),
                org.assertj.core.api.Assertions.within(1e-6));
    }
}
