package io.rkllm.server.http.ollama;

import io.rkllm.server.http.ollama.OllamaRequestParser.OllamaRequest;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.javalin.http.Context;
import io.rkllm.server.api.ApiException;
import io.rkllm.server.http.ConversationHeader;
import io.rkllm.server.http.LogprobsJson;
import io.rkllm.server.http.RunDriver;
import io.rkllm.server.download.PullOrigin;
import io.rkllm.server.models.ModelDescriptor;
import io.rkllm.server.models.ModelHeader;
import io.rkllm.server.models.SamplingDefaults;
import io.rkllm.server.pipeline.Answer;
import io.rkllm.server.pipeline.ModelService;
import io.rkllm.server.pipeline.ModelStatus;
import io.rkllm.server.pipeline.Run;
import io.rkllm.server.pipeline.RunStep;
import io.rkllm.server.pipeline.Usage;
import io.rkllm.server.pipeline.output.OutputEvent;
import io.rkllm.server.pipeline.output.TokenProbability;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * Ollama's API on the same port: {@code /api/version}, {@code /api/tags}, {@code /api/show}, {@code /api/ps},
 * {@code /api/chat} and {@code /api/generate}, through the same pipeline, cache policy and queue as the OpenAI
 * routes. Streams NDJSON by default (one JSON object per line), durations in nanoseconds, tool call arguments
 * as objects, errors as {@code {"error": "..."}} (a line of its own once the stream has started).
 */
final class OllamaHandler {
    /** The Ollama API version whose shapes these routes follow (clients gate features on it). */
    static final String API_VERSION = "0.12.0";
    static final String NDJSON = "application/x-ndjson";
    /** How far in the future {@code expires_at} is when models never unload on their own. */
    private static final Duration NEVER = Duration.ofDays(365L * 100);

    private final RunDriver driver;
    private final ModelService models;
    private final OllamaRequestParser parser;
    private final ObjectMapper mapper;
    private final Duration idleUnload;

    OllamaHandler(RunDriver driver, ModelService models, OllamaRequestParser parser, ObjectMapper mapper,
                  Duration idleUnload) {
        this.driver = driver;
        this.models = models;
        this.parser = parser;
        this.mapper = mapper;
        this.idleUnload = idleUnload;
    }

    void version(Context ctx) throws IOException {
        json(ctx, mapper.createObjectNode().put("version", API_VERSION));
    }

    void tags(Context c) throws IOException {
        ObjectNode root = mapper.createObjectNode();
        ArrayNode entries = root.putArray("models");
        for (ModelDescriptor model : models.all()) {
            ObjectNode m = entries.addObject();
            m.put("name", OllamaModels.name(model));
            m.put("model", OllamaModels.name(model));
            m.put("modified_at", model.modified().toString());
            m.put("size", model.sizeBytes());
            m.put("digest", OllamaModels.digest(model));
            m.set("details", OllamaModels.details(mapper, model));
            OllamaModels.capabilities(model).forEach(m.putArray("capabilities")::add);
        }
        json(c, root);
    }

    void ps(Context c) throws IOException {
        ObjectNode root = mapper.createObjectNode();
        ArrayNode entries = root.putArray("models");
        for (ModelStatus loaded : models.loaded()) {
            Optional<ModelDescriptor> found = models.resolve(loaded.id());
            if (found.isEmpty() || !loaded.ready()) {
                continue;
            }
            ModelDescriptor model = found.get();
            ObjectNode m = entries.addObject();
            m.put("name", OllamaModels.name(model));
            m.put("model", OllamaModels.name(model));
            m.put("size", model.sizeBytes() * loaded.slots());
            m.put("digest", OllamaModels.digest(model));
            m.set("details", OllamaModels.details(mapper, model));
            m.put("expires_at", loaded.lastUsed().plus(idleUnload.isZero() ? NEVER : idleUnload).toString());
            m.put("size_vram", model.sizeBytes() * loaded.slots());
            m.put("context_length", model.contextLength());
        }
        json(c, root);
    }

    void show(Context c) throws IOException {
        JsonNode body = parser.object(c.bodyAsBytes());
        String name = body.path("model").asText(body.path("name").asText(""));
        if (name.isBlank()) {
            throw ApiException.invalid("model", "'model' is required");
        }
        ModelDescriptor model = models.find(name);
        ObjectNode root = mapper.createObjectNode();
        root.put("license", PullOrigin.license(model.file().getParent()).orElse(""));
        root.put("modelfile", "# Modelfile generated by rkllm-server\nFROM " + model.file().getFileName() + "\n");
        root.put("parameters", parameters(model));
        model.chatTemplate().ifPresent(t -> root.put("template", t.systemPrompt() + "{{ .System }}"
                + t.promptPrefix() + "{{ .Prompt }}" + t.promptPostfix()));
        model.defaultSystemPrompt().ifPresent(s -> root.put("system", s));
        root.set("details", OllamaModels.details(mapper, model));
        ObjectNode info = root.putObject("model_info");
        Optional<ModelHeader> header = model.facts().header();
        String architecture = header.map(ModelHeader::architecture).orElse(model.family());
        info.put("general.architecture", architecture);
        info.put("general.basename", model.id());
        header.ifPresent(g -> {
            info.put("general.parameter_count", g.parameterCount());
            info.put("general.file_type", g.quantisation());
            g.name().ifPresent(n -> info.put("general.name", n));
        });
        info.put(architecture + ".context_length", model.contextLength());
        model.embedding().filter(e -> e.dimensions() > 0)
                .ifPresent(e -> info.put(architecture + ".embedding_length", e.dimensions()));
        header.flatMap(ModelHeader::chatTemplate).filter(t -> model.chatTemplate().isEmpty())
                .ifPresent(t -> root.put("template", t));
        OllamaModels.capabilities(model).forEach(root.putArray("capabilities")::add);
        root.put("modified_at", model.modified().toString());
        json(c, root);
    }

    void chat(Context c) throws Exception {
        generate(c, parser.parseChat(c.bodyAsBytes(),
                ConversationHeader.of(c)), true);
    }

    void generate(Context c) throws Exception {
        generate(c, parser.parseGenerate(c.bodyAsBytes(),
                ConversationHeader.of(c)), false);
    }

    private void generate(Context ctx, OllamaRequest request, boolean chat) throws Exception {
        if (request.chat().isEmpty()) {
            loadOrUnload(ctx, request, chat);
            return;
        }
        driver.run(ctx, request.chat().get(), run -> {
            Lines lines = new Lines(request.model().isBlank() ? run.modelId() : request.model(), chat);
            if (request.chat().get().stream()) {
                driver.stream(ctx, run, lines);
            } else {
                driver.collect(ctx, run, answer -> ctx.status(200).contentType("application/json")
                        .result(lines.whole(answer, run)));
            }
        });
    }

    /** No messages (no prompt): load the model, or unload it with {@code keep_alive: 0}, as Ollama does. */
    private void loadOrUnload(Context ctx, OllamaRequest request, boolean chat) throws Exception {
        if (request.model().isBlank()) {
            throw ApiException.invalid("model", "'model' is required");
        }
        ModelDescriptor model = models.find(request.model());
        if (request.unload()) {
            models.unload(model);
        } else {
            models.load(model);
        }
        Lines lines = new Lines(request.model(), chat);
        ObjectNode root = lines.head();
        root.put("done", true);
        root.put("done_reason", request.unload() ? "unload" : "load");
        json(ctx, root);
    }

    private static String parameters(ModelDescriptor model) {
        SamplingDefaults s = model.sampling();
        StringBuilder out = new StringBuilder();
        s.temperature().ifPresent(v -> out.append(param("temperature", v)));
        s.topP().ifPresent(v -> out.append(param("top_p", v)));
        s.topK().ifPresent(v -> out.append(param("top_k", v)));
        s.repeatPenalty().ifPresent(v -> out.append(param("repeat_penalty", v)));
        s.presencePenalty().ifPresent(v -> out.append(param("presence_penalty", v)));
        s.frequencyPenalty().ifPresent(v -> out.append(param("frequency_penalty", v)));
        out.append(param("num_ctx", model.contextLength()));
        s.maxTokens().ifPresent(v -> out.append(param("num_predict", v)));
        // as Ollama writes a list: one line per stop string, quoted
        s.stop().forEach(v -> out.append(param("stop", "\"" + v + "\"")));
        return out.toString().stripTrailing();
    }

    private static String param(String name, Object value) {
        return String.format(Locale.ROOT, "%-30s %s%n", name, value);
    }

    private void json(Context ctx, ObjectNode body) throws IOException {
        ctx.contentType("application/json").result(mapper.writeValueAsBytes(body));
    }

    /**
     * The lines of one /api/chat (message) or /api/generate (response) answer: one JSON object per line,
     * the same {@code model} in each, {@code created_at} when the line was written.
     */
    private final class Lines implements RunDriver.StreamFormat {
        private final String model;
        private final boolean chat;

        Lines(String model, boolean chat) {
            this.model = model;
            this.chat = chat;
        }

        ObjectNode head() {
            ObjectNode root = mapper.createObjectNode();
            root.put("model", model);
            root.put("created_at", Instant.now().toString());
            if (chat) {
                ObjectNode message = root.putObject("message");
                message.put("role", "assistant");
                message.put("content", "");
            } else {
                root.put("response", "");
            }
            return root;
        }

        /** The text part of a line: message.content / response, thinking beside it. */
        private ObjectNode part(ObjectNode root) {
            return chat ? (ObjectNode) root.get("message") : root;
        }

        private String contentField() {
            return chat ? "content" : "response";
        }

        @Override
        public String contentType() {
            return NDJSON;
        }

        @Override
        public List<byte[]> opening() {
            return List.of();
        }

        /** An empty line of the answer: every client reads it as "nothing new". */
        @Override
        public byte[] keepAlive() {
            ObjectNode root = head();
            root.put("done", false);
            return line(root);
        }

        @Override
        public List<byte[]> output(OutputEvent event, List<TokenProbability> logprobs) {
            ObjectNode root = head();
            if (event instanceof OutputEvent.CallDelta) {
                if (logprobs.isEmpty()) {
                    return List.of(); // Ollama streams each call whole
                }
            } else {
                add(part(root), event);
            }
            if (!logprobs.isEmpty()) {
                root.set("logprobs", LogprobsJson.entries(logprobs, true));
            }
            root.put("done", false);
            return List.of(line(root));
        }

        @Override
        public List<byte[]> finished(RunStep.Finished f, Run run) {
            return List.of(line(done(head(), f.finishReason(), f.usage(), run)));
        }

        @Override
        public byte[] failed(ApiException error) {
            return line(mapper.createObjectNode().put("error", error.getMessage()));
        }

        /** The non-streaming answer: one object with the whole text and the final statistics. */
        byte[] whole(Answer answer, Run run) throws IOException {
            ObjectNode root = head();
            ObjectNode part = part(root);
            part.put(contentField(), answer.content());
            if (!answer.reasoning().isEmpty()) {
                part.put("thinking", answer.reasoning());
            }
            if (!answer.toolCalls().isEmpty()) {
                part.set("tool_calls", toolCalls(answer.toolCalls()));
            }
            if (!answer.logprobs().isEmpty()) {
                root.set("logprobs", LogprobsJson.entries(answer.logprobs(), true));
            }
            return mapper.writeValueAsBytes(done(root, answer.finishReason(), answer.usage(), run));
        }

        /** One streamed piece: text, thinking, or a tool call. */
        private void add(ObjectNode part, OutputEvent event) {
            part.put(contentField(), event instanceof OutputEvent.Content c ? c.text() : "");
            switch (event) {
                case OutputEvent.Content c -> {
                }
                case OutputEvent.Reasoning r -> part.put("thinking", r.text());
                case OutputEvent.ToolCall t -> part.set("tool_calls", toolCalls(List.of(t)));
                case OutputEvent.CallDelta d -> throw new IllegalArgumentException("a call is sent whole");
            }
        }

        private ArrayNode toolCalls(List<OutputEvent.ToolCall> toolCalls) {
            ArrayNode calls = mapper.createArrayNode();
            for (OutputEvent.ToolCall t : toolCalls) {
                ObjectNode call = calls.addObject();
                call.put("id", t.id());
                ObjectNode fn = call.putObject("function");
                fn.put("index", t.index());
                fn.put("name", t.name());
                fn.set("arguments", arguments(t.argumentsJson()));
            }
            return calls;
        }

        /** Ollama's arguments are an object; anything else the model wrote becomes {}. */
        private JsonNode arguments(String json) {
            try {
                JsonNode node = mapper.readTree(json);
                return node != null && node.isObject() ? node : mapper.createObjectNode();
            } catch (IOException e) {
                return mapper.createObjectNode();
            }
        }

        private ObjectNode done(ObjectNode root, String finishReason, Usage usage, Run run) {
            root.put("done", true);
            root.put("done_reason", finishReason.equals("length") ? "length" : "stop");
            root.put("total_duration", System.nanoTime() - run.arrivedNanos());
            root.put("load_duration", run.loadNanos());
            root.put("prompt_eval_count", usage.prefilledTokens());
            root.put("prompt_eval_duration", Math.round(usage.prefillMs() * 1_000_000));
            root.put("eval_count", usage.completionTokens());
            root.put("eval_duration", Math.round(usage.generateMs() * 1_000_000));
            return root;
        }

        private byte[] line(ObjectNode node) {
            try {
                return (mapper.writeValueAsString(node) + "\n").getBytes(StandardCharsets.UTF_8);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
    }
}
