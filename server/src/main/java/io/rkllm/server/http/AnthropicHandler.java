package io.rkllm.server.http;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.javalin.http.Context;
import io.rkllm.server.api.AnthropicRequestParser;
import io.rkllm.server.api.ApiException;
import io.rkllm.server.pipeline.request.ChatRequest;
import io.rkllm.server.pipeline.ChatRun;
import io.rkllm.server.pipeline.Usage;
import io.rkllm.server.pipeline.output.OutputEvent;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;

/**
 * A minimal Anthropic Messages API: {@code POST /v1/messages}, text in and out, through the same pipeline,
 * cache policy and queue as the other routes. Streams Anthropic's named SSE events in Anthropic's order
 * (message_start, content_block_start, ping, content_block_delta..., content_block_stop, message_delta,
 * message_stop); reasoning becomes {@code thinking} blocks when the request enabled thinking. Errors are
 * {@code {"type":"error","error":{"type","message"}}}. {@code x-api-key} and {@code anthropic-version} are
 * accepted and not checked here.
 */
final class AnthropicHandler {
    private final RunDriver driver;
    private final AnthropicRequestParser parser;
    private final ObjectMapper mapper;

    AnthropicHandler(RunDriver driver, AnthropicRequestParser parser, ObjectMapper mapper) {
        this.driver = driver;
        this.parser = parser;
        this.mapper = mapper;
    }

    void messages(Context ctx) {
        ErrorBodies.guard(ctx, this::error, c -> {
            ChatRequest request = parser.parse(c.bodyAsBytes(),
                    Optional.ofNullable(c.header(CompletionHandler.CHAT_ID_HEADER)));
            String id = "msg_" + UUID.randomUUID().toString().replace("-", "");
            driver.run(c, request, started -> {
                String model = request.model().isBlank() ? started.modelId() : request.model();
                boolean thinking = started.chat().thinking();
                if (request.stream()) {
                    driver.stream(c, started, new Events(id, model, thinking));
                } else {
                    driver.collect(c, started, answer -> c.status(200).contentType("application/json").result(
                            mapper.writeValueAsBytes(message(id, model, blocks(answer.events(), thinking),
                                    answer.finished(), started))));
                }
            });
        });
    }

    private ObjectNode message(String id, String model, ArrayNode content, ChatRun.Step.Finished f,
                               RunDriver.Started started) {
        ObjectNode root = mapper.createObjectNode();
        root.put("id", id);
        root.put("type", "message");
        root.put("role", "assistant");
        root.put("model", model);
        root.set("content", content);
        stopReason(root, f, started);
        root.set("usage", usage(f.usage()));
        return root;
    }

    /** The answer's content blocks: runs of reasoning (when asked for) and text, in order; at least one. */
    private ArrayNode blocks(List<OutputEvent> events, boolean thinking) {
        ArrayNode blocks = mapper.createArrayNode();
        ObjectNode current = null;
        for (OutputEvent event : events) {
            String type = type(event, thinking);
            if (type == null) {
                continue;
            }
            String field = type.equals("text") ? "text" : "thinking";
            if (current == null || !current.path("type").asText().equals(type)) {
                current = block(type);
                blocks.add(current);
            }
            current.put(field, current.path(field).asText() + text(event));
        }
        if (blocks.isEmpty()) {
            blocks.add(block("text"));
        }
        return blocks;
    }

    private ObjectNode block(String type) {
        ObjectNode block = mapper.createObjectNode();
        block.put("type", type);
        if (type.equals("text")) {
            block.put("text", "");
        } else {
            block.put("thinking", "");
            block.put("signature", "");
        }
        return block;
    }

    /** The block type an event belongs to, or null when it is not shown (reasoning not asked for, tools). */
    private static String type(OutputEvent event, boolean thinking) {
        return switch (event) {
            case OutputEvent.Content c -> "text";
            case OutputEvent.Reasoning r -> thinking ? "thinking" : null;
            case OutputEvent.ToolCall t -> null;
        };
    }

    private static String text(OutputEvent event) {
        return switch (event) {
            case OutputEvent.Content c -> c.text();
            case OutputEvent.Reasoning r -> r.text();
            case OutputEvent.ToolCall t -> "";
        };
    }

    /** stop_reason and stop_sequence: end_turn, max_tokens, or stop_sequence with the string that matched. */
    private static void stopReason(ObjectNode node, ChatRun.Step.Finished f, RunDriver.Started started) {
        Optional<String> stop = started.run().matchedStop();
        if (f.finishReason().equals("length")) {
            node.put("stop_reason", "max_tokens");
            node.putNull("stop_sequence");
        } else if (stop.isPresent()) {
            node.put("stop_reason", "stop_sequence");
            node.put("stop_sequence", stop.get());
        } else {
            node.put("stop_reason", "end_turn");
            node.putNull("stop_sequence");
        }
    }

    /** input_tokens is what was prefilled now; what the KV cache already held is cache_read_input_tokens. */
    private ObjectNode usage(Usage usage) {
        ObjectNode u = mapper.createObjectNode();
        u.put("input_tokens", usage.promptTokens() - usage.cachedTokens());
        u.put("output_tokens", usage.completionTokens());
        u.put("cache_read_input_tokens", usage.cachedTokens());
        u.put("cache_creation_input_tokens", 0);
        return u;
    }

    byte[] error(ApiException e) throws IOException {
        return mapper.writeValueAsBytes(errorBody(e));
    }

    private ObjectNode errorBody(ApiException e) {
        ObjectNode root = mapper.createObjectNode();
        root.put("type", "error");
        ObjectNode error = root.putObject("error");
        error.put("type", errorType(e));
        error.put("message", e.getMessage());
        return root;
    }

    /** Anthropic's error types, by status. */
    static String errorType(ApiException e) {
        return switch (e.status()) {
            case 400, 405, 422 -> "invalid_request_error";
            case 401 -> "authentication_error";
            case 403 -> "permission_error";
            case 404 -> "not_found_error";
            case 413 -> "request_too_large";
            case 429 -> "rate_limit_error";
            case 503, 529 -> "overloaded_error";
            case 504 -> "timeout_error";
            default -> "api_error";
        };
    }

    /**
     * One streamed message as Anthropic's events. Content blocks open when their first piece arrives (a
     * ping follows the first one) and close when a block of another type starts or the answer ends.
     */
    private final class Events implements RunDriver.StreamFormat {
        private final String id;
        private final String model;
        private final boolean thinking;
        private String openType;
        private int index = -1;

        Events(String id, String model, boolean thinking) {
            this.id = id;
            this.model = model;
            this.thinking = thinking;
        }

        @Override
        public String contentType() {
            return "text/event-stream";
        }

        @Override
        public List<byte[]> opening() {
            ObjectNode message = mapper.createObjectNode();
            message.put("id", id);
            message.put("type", "message");
            message.put("role", "assistant");
            message.putArray("content");
            message.put("model", model);
            message.putNull("stop_reason");
            message.putNull("stop_sequence");
            ObjectNode usage = message.putObject("usage");
            usage.put("input_tokens", 0);
            usage.put("output_tokens", 0);
            ObjectNode root = event("message_start");
            root.set("message", message);
            return List.of(sse("message_start", root));
        }

        @Override
        public byte[] keepAlive() {
            return sse("ping", event("ping"));
        }

        @Override
        public List<byte[]> output(OutputEvent e) {
            String type = type(e, thinking);
            if (type == null) {
                return List.of();
            }
            List<byte[]> out = new ArrayList<>(open(type));
            ObjectNode root = event("content_block_delta");
            root.put("index", index);
            ObjectNode delta = root.putObject("delta");
            if (type.equals("text")) {
                delta.put("type", "text_delta");
                delta.put("text", text(e));
            } else {
                delta.put("type", "thinking_delta");
                delta.put("thinking", text(e));
            }
            out.add(sse("content_block_delta", root));
            return out;
        }

        @Override
        public List<byte[]> finished(ChatRun.Step.Finished f, RunDriver.Started started) {
            List<byte[]> out = new ArrayList<>(openType == null ? open("text") : List.of());
            out.add(close());
            ObjectNode root = event("message_delta");
            stopReason(root.putObject("delta"), f, started);
            root.set("usage", usage(f.usage()));
            out.add(sse("message_delta", root));
            out.add(sse("message_stop", event("message_stop")));
            return out;
        }

        @Override
        public byte[] failed(ApiException error) {
            return sse("error", errorBody(error));
        }

        /** Closes the open block of another type and starts one of {@code type}; nothing if it is open. */
        private List<byte[]> open(String type) {
            if (type.equals(openType)) {
                return List.of();
            }
            List<byte[]> out = new ArrayList<>();
            if (openType != null) {
                out.add(close());
            }
            index++;
            openType = type;
            ObjectNode root = event("content_block_start");
            root.put("index", index);
            root.set("content_block", block(type));
            out.add(sse("content_block_start", root));
            if (index == 0) {
                out.add(keepAlive());
            }
            return out;
        }

        private byte[] close() {
            ObjectNode root = event("content_block_stop");
            root.put("index", index);
            return sse("content_block_stop", root);
        }

        private ObjectNode event(String type) {
            return mapper.createObjectNode().put("type", type);
        }

        private byte[] sse(String name, ObjectNode data) {
            try {
                return ("event: " + name + "\ndata: " + mapper.writeValueAsString(data) + "\n\n")
                        .getBytes(StandardCharsets.UTF_8);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
    }
}
