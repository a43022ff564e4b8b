package io.rkllm.tools.reliability;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.List;
import java.util.Map;
import java.util.Random;

/** Valid requests for the fuzzer to damage: a body for one of the POST routes, naming one of the server's models. */
record FuzzTemplates(List<String> models) {
    private static final JsonNodeFactory NODES = JsonNodeFactory.instance;

    String model(Random r) {
        return models.isEmpty() ? "m" : models.get(r.nextInt(models.size()));
    }

    /** A valid request body for one of the POST routes, and its route. */
    Map.Entry<String, ObjectNode> template(Random r) {
        String model = model(r);
        String say = "[[say:fuzz " + Integer.toHexString(r.nextInt()) + "]]";
        ObjectNode body = NODES.objectNode();
        return switch (r.nextInt(14)) {
            case 0 -> {
                body.put("model", model);
                body.putArray("messages").addObject().put("role", "user").put("content", say);
                yield Map.entry("/v1/chat/completions", body);
            }
            case 11 -> {
                body.put("model", model);
                body.putArray("input").add(say).add("second text");
                body.put("encoding_format", r.nextBoolean() ? "float" : "base64");
                body.put("dimensions", 8);
                body.put("input_type", "query");
                yield Map.entry("/v1/embeddings", body);
            }
            case 12 -> {
                body.put("model", model);
                body.put("input", say);
                body.put("truncate", true);
                yield Map.entry(r.nextBoolean() ? "/api/embed" : "/api/embeddings", body);
            }
            case 1 -> {
                body.put("model", model);
                ArrayNode messages = body.putArray("messages");
                messages.addObject().put("role", "system").put("content", "Be brief.");
                messages.addObject().put("role", "user").put("content", "What is the weather in Paris?");
                ObjectNode assistant = messages.addObject().put("role", "assistant");
                assistant.putNull("content");
                ObjectNode call = assistant.putArray("tool_calls").addObject().put("id", "call_1").put("type", "function");
                call.putObject("function").put("name", "get_weather").put("arguments", "{\"city\":\"Paris\"}");
                messages.addObject().put("role", "tool").put("tool_call_id", "call_1").put("content", "sunny, 21 C");
                messages.addObject().put("role", "user").put("content", say);
                body.put("stream", r.nextBoolean());
                body.putObject("stream_options").put("include_usage", true);
                body.put("max_tokens", 1 + r.nextInt(12));
                body.put("temperature", 0.7);
                body.put("top_p", 0.9);
                body.put("top_k", 20);
                body.put("presence_penalty", 0.5);
                body.put("frequency_penalty", 0.1);
                body.put("repeat_penalty", 1.1);
                body.put("seed", 42);
                body.put("n", 1);
                body.putArray("stop").add("\n\n\n").add("END");
                ObjectNode tool = body.putArray("tools").addObject().put("type", "function");
                ObjectNode fn = tool.putObject("function").put("name", "get_weather").put("description", "Weather");
                ObjectNode params = fn.putObject("parameters").put("type", "object");
                params.putObject("properties").putObject("city").put("type", "string");
                body.put("tool_choice", "auto");
                body.put("reasoning_effort", "low");
                body.putObject("chat_template_kwargs").put("enable_thinking", false);
                body.putObject("response_format").put("type", "text");
                body.put("user", "fuzz-user");
                body.put("prompt_cache_key", "fuzz");
                yield Map.entry("/v1/chat/completions", body);
            }
            case 2 -> {
                body.put("model", model);
                ArrayNode content = body.putArray("messages").addObject().put("role", "user").putArray("content");
                content.addObject().put("type", "text").put("text", "Summarise:");
                content.addObject().put("type", "text").put("text", say);
                body.put("stream", true);
                body.put("max_completion_tokens", 1 + r.nextInt(8));
                yield Map.entry("/chat/completions", body);
            }
            case 3 -> {
                body.put("model", model);
                body.put("prompt", say);
                body.put("max_tokens", 1 + r.nextInt(8));
                body.put("stream", r.nextBoolean());
                yield Map.entry(r.nextBoolean() ? "/v1/completions" : "/completions", body);
            }
            case 4 -> {
                body.put("model", model);
                ArrayNode messages = body.putArray("messages");
                messages.addObject().put("role", "developer").put("content", "You answer in French.");
                messages.addObject().put("role", "user").put("content", "/no_think " + say);
                body.put("stream", true);
                yield Map.entry("/v1/chat/completions", body);
            }
            case 5 -> {
                body.put("model", model);
                body.putArray("messages").addObject().put("role", "user")
                        .put("content", "### Task:\nGenerate a concise, 3-5 word title. " + say);
                yield Map.entry("/v1/chat/completions", body);
            }
            case 6 -> {
                body.put("model", model);
                ArrayNode messages = body.putArray("messages");
                messages.addObject().put("role", "system").put("content", "Be brief.");
                messages.addObject().put("role", "user").put("content", say);
                body.put("stream", r.nextBoolean());
                body.put("think", false);
                ObjectNode options = body.putObject("options");
                options.put("num_predict", 1 + r.nextInt(12));
                options.put("temperature", 0.5);
                options.putArray("stop").add("END");
                body.put("keep_alive", "5m");
                yield Map.entry("/api/chat", body);
            }
            case 7 -> {
                body.put("model", model);
                body.put("prompt", say);
                body.put("system", "Be brief.");
                body.put("stream", r.nextBoolean());
                body.putObject("options").put("num_predict", 1 + r.nextInt(12));
                yield Map.entry("/api/generate", body);
            }
            case 8 -> {
                body.put("model", model);
                yield Map.entry("/api/show", body);
            }
            case 9 -> {
                body.put("model", model);
                body.put("instructions", "Be brief.");
                ArrayNode input = body.putArray("input");
                input.addObject().put("role", "user").putArray("content").addObject().put("type", "input_text")
                        .put("text", "What is the weather in Paris?");
                input.addObject().put("type", "function_call").put("call_id", "call_1").put("name", "get_weather")
                        .put("arguments", "{\"city\":\"Paris\"}");
                input.addObject().put("type", "function_call_output").put("call_id", "call_1")
                        .put("output", "sunny, 21 C");
                input.addObject().put("role", "user").put("content", say);
                body.put("stream", r.nextBoolean());
                body.put("store", r.nextBoolean());
                body.put("max_output_tokens", 1 + r.nextInt(12));
                body.putObject("reasoning").put("effort", "low");
                body.putObject("text").putObject("format").put("type", "text");
                yield Map.entry(r.nextBoolean() ? "/v1/responses" : "/responses", body);
            }
            case 10 -> {
                body.put("model", model);
                body.put("system", "Be brief.");
                body.putArray("messages").addObject().put("role", "user").put("content", say);
                yield Map.entry("/v1/messages/count_tokens", body);
            }
            default -> {
                body.put("model", model);
                body.put("max_tokens", 1 + r.nextInt(16));
                body.put("system", "Be brief.");
                ArrayNode messages = body.putArray("messages");
                messages.addObject().put("role", "user").putArray("content").addObject().put("type", "text")
                        .put("text", say);
                body.put("stream", r.nextBoolean());
                body.putArray("stop_sequences").add("END");
                body.putObject("metadata").put("user_id", "fuzz");
                yield Map.entry("/v1/messages", body);
            }
        };
    }
}
