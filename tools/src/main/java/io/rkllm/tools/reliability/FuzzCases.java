package io.rkllm.tools.reliability;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.rkllm.server.harness.RawHttp;
import java.io.ByteArrayOutputStream;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

/**
 * The fuzzer's requests: valid requests of every route mutated field by field, bodies that are not
 * JSON or not UTF-8, odd headers and content types, odd routes and methods, and malformed HTTP. Case
 * {@code i} of seed {@code s} is always the same request, so one failing case can be replayed alone.
 */
public final class FuzzCases {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final JsonNodeFactory NODES = JsonNodeFactory.instance;

    /** One request: the exact bytes, what it is, and whether it is a HEAD request (no body in the answer). */
    public record Case(int index, String category, String description, String path, byte[] bytes, boolean head) {
    }

    private final long seed;
    private final List<String> models;
    private final String apiKey;
    private final int hugeBytes;

    /**
     * @param models model ids the server has (valid requests name them)
     * @param apiKey a key to send on most requests, or null
     * @param hugeBytes the size of the largest bodies sent (beyond the server's limit to test the 413)
     */
    public FuzzCases(long seed, List<String> models, String apiKey, int hugeBytes) {
        this.seed = seed;
        this.models = List.copyOf(models);
        this.apiKey = apiKey;
        this.hugeBytes = hugeBytes;
    }

    public Case generate(int index) {
        Random r = new Random(seed * 1_000_003L + index);
        int pick = r.nextInt(100);
        if (pick < 45) {
            return mutatedJson(index, r);
        } else if (pick < 55) {
            return nullFields(index, r);
        } else if (pick < 68) {
            return badBody(index, r);
        } else if (pick < 78) {
            return oddHeaders(index, r);
        } else if (pick < 92) {
            return oddRoutes(index, r);
        }
        return badHttp(index, r);
    }

    // ---------------------------------------------------------------- valid requests and their routes

    private String model(Random r) {
        return models.isEmpty() ? "m" : models.get(r.nextInt(models.size()));
    }

    /** A valid request body for one of the POST routes, and its route. */
    private Map.Entry<String, ObjectNode> template(Random r) {
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

    private Map<String, String> jsonHeaders() {
        Map<String, String> h = new LinkedHashMap<>();
        h.put("Content-Type", "application/json");
        if (apiKey != null) {
            h.put("Authorization", "Bearer " + apiKey);
        }
        return h;
    }

    private Case post(int index, String category, String description, String path, byte[] body) {
        return new Case(index, category, description, path, RawHttp.request("POST", path, jsonHeaders(), body), false);
    }

    // ---------------------------------------------------------------- mutations of valid requests

    private Case mutatedJson(int index, Random r) {
        var t = template(r);
        ObjectNode body = t.getValue();
        int mutations = 1 + r.nextInt(3);
        List<String> done = new ArrayList<>();
        for (int i = 0; i < mutations; i++) {
            done.add(mutate(body, r));
        }
        byte[] bytes = body.toString().getBytes(StandardCharsets.UTF_8);
        if (r.nextInt(5) == 0) {
            bytes = rawMutation(bytes, r, done);
        }
        return post(index, "mutated", String.join("; ", done), t.getKey(), bytes);
    }

    /** Replaces, removes or adds one value somewhere in the tree; says what it did. */
    private String mutate(ObjectNode root, Random r) {
        List<String> paths = new ArrayList<>();
        collect(root, "", paths);
        if (paths.isEmpty()) {
            root.set("model", randomValue(r));
            return "set /model on an empty body";
        }
        String path = paths.get(r.nextInt(paths.size()));
        int slash = path.lastIndexOf('/');
        JsonNode parent = slash <= 0 ? root : root.at(path.substring(0, slash));
        String last = path.substring(slash + 1);
        int op = r.nextInt(10);
        if (parent instanceof ObjectNode obj) {
            if (op == 0) {
                obj.remove(last);
                return "removed " + path;
            }
            if (op == 1) {
                String name = r.nextBoolean() ? "unknown_" + r.nextInt(100) : oddString(r, 40);
                obj.set(name, randomValue(r));
                return "added a field next to " + path;
            }
            obj.set(last, randomValue(r));
            return "replaced " + path;
        }
        if (parent instanceof ArrayNode array) {
            int i = Integer.parseInt(last);
            switch (op) {
                case 0 -> {
                    array.remove(i);
                    return "removed " + path;
                }
                case 1 -> {
                    JsonNode copy = array.get(i).deepCopy();
                    int n = r.nextInt(4) == 0 ? 1500 : 1 + r.nextInt(5);
                    for (int k = 0; k < n; k++) {
                        array.add(copy.deepCopy());
                    }
                    return "repeated " + path + " " + n + " times";
                }
                case 2 -> {
                    array.removeAll();
                    return "emptied the array of " + path;
                }
                default -> {
                    array.set(i, randomValue(r));
                    return "replaced " + path;
                }
            }
        }
        return "nothing";
    }

    private static void collect(JsonNode node, String prefix, List<String> out) {
        if (node.isObject()) {
            node.fieldNames().forEachRemaining(name -> {
                String p = prefix + "/" + name;
                out.add(p);
                collect(node.get(name), p, out);
            });
        } else if (node.isArray()) {
            for (int i = 0; i < node.size(); i++) {
                String p = prefix + "/" + i;
                out.add(p);
                collect(node.get(i), p, out);
            }
        }
    }

    private JsonNode randomValue(Random r) {
        return switch (r.nextInt(24)) {
            case 0 -> NODES.nullNode();
            case 1 -> NODES.textNode("");
            case 2 -> NODES.textNode(oddString(r, 1 + r.nextInt(64)));
            case 3 -> NODES.textNode("x".repeat(r.nextInt(4) == 0 ? hugeBytes / 2 : 5000));
            case 4 -> NODES.numberNode(0);
            case 5 -> NODES.numberNode(-1);
            case 6 -> NODES.numberNode(r.nextBoolean() ? Long.MAX_VALUE : Long.MIN_VALUE);
            case 7 -> NODES.numberNode(new BigInteger("1" + "0".repeat(40)));
            case 8 -> NODES.numberNode(r.nextBoolean() ? 1e308 : -1e-308);
            case 9 -> NODES.numberNode(r.nextDouble() * 4 - 2);
            case 10 -> NODES.booleanNode(r.nextBoolean());
            case 11 -> NODES.arrayNode();
            case 12 -> NODES.objectNode();
            case 13 -> nested(r, 1 + r.nextInt(80));
            case 14 -> NODES.textNode(pick(r, "user", "USER", "assistant", "system", "tool", "developer", "function",
                    "root", "", "ü", "user\u0000", "model"));
            case 15 -> NODES.arrayNode().add(NODES.objectNode().put("role", "user").putNull("content"));
            case 16 -> NODES.arrayNode().add(NODES.objectNode().put("type", pick(r, "image_url", "input_audio",
                    "file", "text", "video", "")).put("text", "hi"));
            case 17 -> NODES.textNode(pick(r, "[[tokens:3]]", "[[say:]]", "[[say:\\n]]", "<think>", "</think>",
                    "<tool_call>", "/no_think", "/think", "### Task:", "[[say:" + oddString(r, 8) + "]]"));
            case 18 -> NODES.objectNode().put("type", pick(r, "json_object", "json_schema", "text", "xml"));
            case 19 -> NODES.textNode(pick(r, "none", "minimal", "low", "medium", "high", "max", "auto",
                    "required"));
            case 20 -> NODES.numberNode(pick(r, 1, 2, 3, 8, 100, 4096, 32768, 32769, 1_000_000));
            case 21 -> {
                ObjectNode tool = NODES.objectNode().put("type", pick(r, "function", "code_interpreter", ""));
                tool.putObject("function").put("name", oddString(r, 12));
                yield NODES.arrayNode().add(tool);
            }
            case 22 -> NODES.textNode(pick(r, "qwen", "../../etc/passwd", "/etc/passwd", "m:latest",
                    "%2e%2e%2f", "\u0000", "a/b", "nonexistent", "Q", "qwen3-1.7b-sim\n"));
            default -> NODES.textNode(new String(Character.toChars(0x1F600 + r.nextInt(50))).repeat(1 + r.nextInt(9)));
        };
    }

    private static JsonNode nested(Random r, int depth) {
        JsonNode node = NODES.textNode("deep");
        for (int i = 0; i < depth; i++) {
            node = r.nextBoolean() ? NODES.arrayNode().add(node) : NODES.objectNode().set("k", node);
        }
        return node;
    }

    private static String oddString(Random r, int length) {
        StringBuilder s = new StringBuilder();
        for (int i = 0; i < length; i++) {
            int kind = r.nextInt(8);
            s.append(switch (kind) {
                case 0 -> (char) r.nextInt(0x20);
                case 1 -> "\n";
                case 2 -> "\"";
                case 3 -> "\\";
                case 4 -> "é";
                case 5 -> new String(Character.toChars(0x1F300 + r.nextInt(200)));
                case 6 -> "\u2028";
                default -> (char) ('a' + r.nextInt(26));
            });
        }
        return s.toString();
    }

    @SafeVarargs
    private static <T> T pick(Random r, T... options) {
        return options[r.nextInt(options.length)];
    }

    /** Byte-level damage to a serialised body. */
    private byte[] rawMutation(byte[] bytes, Random r, List<String> done) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        int at = bytes.length == 0 ? 0 : r.nextInt(bytes.length);
        switch (r.nextInt(9)) {
            case 0 -> {
                done.add("truncated at " + at);
                out.write(bytes, 0, at);
            }
            case 1 -> {
                byte[] bad = pick(r, new byte[] {(byte) 0xff}, new byte[] {(byte) 0xc0, (byte) 0xaf},
                        new byte[] {(byte) 0x80}, new byte[] {(byte) 0xed, (byte) 0xa0, (byte) 0x80},
                        new byte[] {(byte) 0xf4, (byte) 0x90, (byte) 0x80, (byte) 0x80}, new byte[] {(byte) 0xe2, 0x28});
                int q = indexAfterQuote(bytes, at);
                done.add("invalid UTF-8 inserted at " + q);
                out.write(bytes, 0, q);
                out.writeBytes(bad);
                out.write(bytes, q, bytes.length - q);
            }
            case 2 -> {
                done.add("byte flipped at " + at);
                byte[] copy = bytes.clone();
                if (copy.length > 0) {
                    copy[at] ^= (byte) (1 << r.nextInt(8));
                }
                out.writeBytes(copy);
            }
            case 3 -> {
                done.add("UTF-8 BOM first");
                out.writeBytes(new byte[] {(byte) 0xef, (byte) 0xbb, (byte) 0xbf});
                out.writeBytes(bytes);
            }
            case 4 -> {
                done.add("trailing garbage");
                out.writeBytes(bytes);
                out.writeBytes(pick(r, "}", "]", "{}", "\u0000", " // comment", "\n{\"a\":1}").getBytes(StandardCharsets.UTF_8));
            }
            case 5 -> {
                done.add("lone surrogate escape");
                String s = new String(bytes, StandardCharsets.UTF_8).replaceFirst("\"content\":\"",
                        "\"content\":\"\\\\ud800" + pick(r, "", "\\\\u0000", "\\\\udfff\\\\ud800"));
                out.writeBytes(s.getBytes(StandardCharsets.UTF_8));
            }
            case 6 -> {
                done.add("duplicate keys");
                String s = new String(bytes, StandardCharsets.UTF_8);
                out.writeBytes(("{\"model\":null,\"messages\":7," + s.substring(1)).getBytes(StandardCharsets.UTF_8));
            }
            case 7 -> {
                done.add("wrapped in an array");
                out.write('[');
                out.writeBytes(bytes);
                out.write(']');
            }
            default -> {
                done.add("UTF-16 encoded");
                out.writeBytes(new String(bytes, StandardCharsets.UTF_8).getBytes(StandardCharsets.UTF_16));
            }
        }
        return out.toByteArray();
    }

    private static int indexAfterQuote(byte[] bytes, int from) {
        for (int i = from; i < bytes.length; i++) {
            if (bytes[i] == '"') {
                return i + 1;
            }
        }
        return from;
    }

    // ---------------------------------------------------------------- every field null

    private Case nullFields(int index, Random r) {
        var t = template(r);
        ObjectNode body = t.getValue();
        List<String> fields = new ArrayList<>();
        body.fieldNames().forEachRemaining(fields::add);
        String description;
        if (r.nextBoolean()) {
            fields.forEach(f -> body.putNull(f));
            description = "every field null";
        } else {
            String f = fields.get(r.nextInt(fields.size()));
            body.putNull(f);
            if (body.get("messages") instanceof ArrayNode messages && !messages.isEmpty() && r.nextBoolean()
                    && messages.get(0) instanceof ObjectNode first) {
                List<String> names = new ArrayList<>();
                first.fieldNames().forEachRemaining(names::add);
                names.forEach(first::putNull);
                description = f + " null and every field of messages[0] null";
            } else {
                description = f + " null";
            }
        }
        return post(index, "nulls", description, t.getKey(), body.toString().getBytes(StandardCharsets.UTF_8));
    }

    // ---------------------------------------------------------------- bodies that are not (good) JSON

    private Case badBody(int index, Random r) {
        String path = pick(r, "/v1/chat/completions", "/v1/completions", "/chat/completions",
                "/v1/models/" + model(r) + "/load", "/api/chat", "/api/generate", "/api/show", "/v1/messages");
        byte[] body;
        String description;
        switch (r.nextInt(14)) {
            case 0 -> {
                body = new byte[0];
                description = "empty body";
            }
            case 1 -> {
                body = new byte[1 + r.nextInt(2000)];
                r.nextBytes(body);
                description = "random bytes";
            }
            case 2 -> {
                body = pick(r, "null", "true", "42", "\"text\"", "[]", "[{}]", "{", "}", "{\"model\":}", "{'a':1}",
                        "{\"messages\":[", "NaN", "{\"a\":1,}", "{\"max_tokens\":1e999999}", "{\"max_tokens\":-0}",
                        "{\"max_tokens\":0x10}", "{\"a\" 1}", "\u0000", " ", "\r\n")
                        .getBytes(StandardCharsets.UTF_8);
                description = "not a JSON object";
            }
            case 3 -> {
                int depth = pick(r, 65, 1000, 100_000);
                body = ("[".repeat(depth) + "]".repeat(depth)).getBytes(StandardCharsets.UTF_8);
                description = "arrays nested " + depth + " deep";
            }
            case 4 -> {
                int depth = pick(r, 63, 65, 5000);
                body = ("{\"messages\":" + "{\"a\":".repeat(depth) + "1" + "}".repeat(depth) + "}")
                        .getBytes(StandardCharsets.UTF_8);
                description = "objects nested " + depth + " deep";
            }
            case 5 -> {
                body = ("{\"model\":\"" + model(r) + "\",\"max_tokens\":" + "9".repeat(pick(r, 19, 65, 5000))
                        + ",\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}").getBytes(StandardCharsets.UTF_8);
                description = "a very long number";
            }
            case 6 -> {
                int n = hugeBytes;
                StringBuilder s = new StringBuilder(n + 200).append("{\"model\":\"").append(model(r))
                        .append("\",\"messages\":[{\"role\":\"user\",\"content\":\"");
                s.append("a".repeat(n));
                s.append("\"}]}");
                body = s.toString().getBytes(StandardCharsets.UTF_8);
                description = "a " + n + "-byte body";
            }
            case 7 -> {
                StringBuilder s = new StringBuilder("{\"model\":\"" + model(r) + "\",\"messages\":[");
                int n = pick(r, 1025, 3000, 20000);
                for (int i = 0; i < n; i++) {
                    s.append(i == 0 ? "" : ",").append("{\"role\":\"user\",\"content\":\"m\"}");
                }
                body = s.append("]}").toString().getBytes(StandardCharsets.UTF_8);
                description = n + " messages";
            }
            case 8 -> {
                StringBuilder s = new StringBuilder("{\"model\":\"" + model(r)
                        + "\",\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}],\"stop\":[");
                int n = pick(r, 17, 500);
                for (int i = 0; i < n; i++) {
                    s.append(i == 0 ? "" : ",").append('"').append("s".repeat(1 + r.nextInt(300))).append('"');
                }
                body = s.append("]}").toString().getBytes(StandardCharsets.UTF_8);
                description = n + " stop strings";
            }
            case 9 -> {
                StringBuilder s = new StringBuilder("{");
                int n = pick(r, 1000, 50000);
                for (int i = 0; i < n; i++) {
                    s.append(i == 0 ? "" : ",").append("\"k").append(i).append("\":").append(i);
                }
                body = s.append('}').toString().getBytes(StandardCharsets.UTF_8);
                description = n + " unknown fields";
            }
            case 10 -> {
                body = ("{\"model\":\"" + model(r) + "\",\"messages\":[{\"role\":\"user\",\"content\":\"\\u"
                        + pick(r, "", "12", "zzzz", "d800\\u0041", "0000") + "\"}]}").getBytes(StandardCharsets.UTF_8);
                description = "a bad unicode escape";
            }
            case 11 -> {
                String s = "{\"model\":\"" + model(r) + "\",\"messages\":[{\"role\":\"user\",\"content\":\"caf\u00e9\"}]}";
                body = s.getBytes(pick(r, StandardCharsets.ISO_8859_1, StandardCharsets.UTF_16LE, StandardCharsets.UTF_16BE));
                description = "not UTF-8";
            }
            case 12 -> {
                body = "model=m&messages=hi".getBytes(StandardCharsets.UTF_8);
                description = "a form body";
            }
            default -> {
                body = ("{\"model\":\"" + model(r) + "\",\"messages\":[{\"role\":\"user\",\"content\":\""
                        + "\u0001\u0002\t\b\f" + "\"}]}").getBytes(StandardCharsets.UTF_8);
                description = "raw control characters in a string";
            }
        }
        return post(index, "bad-body", description, path, body);
    }

    // ---------------------------------------------------------------- odd headers

    private Case oddHeaders(int index, Random r) {
        var t = template(r);
        byte[] body = t.getValue().toString().getBytes(StandardCharsets.UTF_8);
        Map<String, String> h = new LinkedHashMap<>();
        String description;
        switch (r.nextInt(12)) {
            case 0 -> {
                String type = pick(r, "text/plain", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x",
                        "application/json; charset=latin1", "application/json; charset=utf-16", "*/*", "",
                        "application/xml", "garbage", "application/json;;;", "application/x-ndjson");
                h.put("Content-Type", type);
                description = "Content-Type: " + type;
            }
            case 1 -> {
                h.put("Content-Encoding", pick(r, "gzip", "deflate", "br", "identity", "x-unknown"));
                description = "a Content-Encoding the body does not have";
            }
            case 2 -> {
                h.put("Expect", "100-continue");
                description = "Expect: 100-continue";
            }
            case 3 -> {
                h.put("Authorization", pick(r, "Bearer", "Bearer ", "Basic dXNlcjpwYXNz", "Bearer " + "k".repeat(5000),
                        "bearer wrong", "Bearer \u00e9\u00e9"));
                description = "an odd Authorization header";
            }
            case 4 -> {
                h.put("X-Api-Key", pick(r, "", "wrong", "x".repeat(3000)));
                description = "an odd X-Api-Key";
            }
            case 5 -> {
                h.put("x-request-id", pick(r, "", "a b", "<script>", "x".repeat(500), "id\u00e9"));
                description = "an odd x-request-id";
            }
            case 6 -> {
                h.put("X-OpenWebUI-Chat-Id", pick(r, "", " ", "x".repeat(2000), "chat\u00e9", "../../x"));
                description = "an odd X-OpenWebUI-Chat-Id";
            }
            case 7 -> {
                h.put("Origin", pick(r, "http://evil.example", "null", "", "http://localhost:3000"));
                description = "an Origin";
            }
            case 8 -> {
                h.put("Accept", pick(r, "text/html", "application/xml", "*/*;q=0", "text/event-stream"));
                description = "an odd Accept";
            }
            case 9 -> {
                h.put("Accept-Encoding", pick(r, "gzip", "br", "zstd", "*"));
                description = "Accept-Encoding";
            }
            case 10 -> {
                h.put("X-Forwarded-For", "1.2.3.4\u00e9");
                h.put("Forwarded", "for=\"[::1]\";proto=https");
                description = "forwarding headers";
            }
            default -> {
                for (int i = 0; i < 80; i++) {
                    h.put("X-Many-" + i, "v".repeat(50));
                }
                description = "80 extra headers";
            }
        }
        if (!h.containsKey("Content-Type")) {
            h.put("Content-Type", "application/json");
        }
        if (apiKey != null && !h.containsKey("Authorization") && !h.containsKey("X-Api-Key")) {
            h.put("Authorization", "Bearer " + apiKey);
        }
        byte[] bytes;
        if (r.nextInt(4) == 0) {
            description += ", chunked";
            bytes = chunkedRequest(t.getKey(), h, body, r);
        } else {
            bytes = RawHttp.request("POST", t.getKey(), h, body);
        }
        return new Case(index, "headers", description, t.getKey(), bytes, false);
    }

    private static byte[] chunkedRequest(String path, Map<String, String> headers, byte[] body, Random r) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        StringBuilder s = new StringBuilder("POST " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\n");
        headers.forEach((k, v) -> s.append(k).append(": ").append(v).append("\r\n"));
        s.append("Transfer-Encoding: chunked\r\nConnection: close\r\n\r\n");
        out.writeBytes(s.toString().getBytes(StandardCharsets.UTF_8));
        int at = 0;
        while (at < body.length) {
            int n = Math.min(body.length - at, 1 + r.nextInt(64));
            out.writeBytes((Integer.toHexString(n) + "\r\n").getBytes(StandardCharsets.US_ASCII));
            out.write(body, at, n);
            out.writeBytes("\r\n".getBytes(StandardCharsets.US_ASCII));
            at += n;
        }
        out.writeBytes("0\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
        return out.toByteArray();
    }

    // ---------------------------------------------------------------- routes, ids, methods

    private Case oddRoutes(int index, Random r) {
        String id = pick(r, model(r), model(r).toUpperCase(), "qwen", "nonexistent", "..", "..%2F..%2Fetc%2Fpasswd",
                "%2e%2e", "a%2Fb", "%00", "%25", "%C3%A9", "x".repeat(2000), "m:latest", "%0d%0aX-Injected:%201",
                "%E2%80%A8", "con", "~root", "%2Fetc%2Fpasswd");
        String method = pick(r, "GET", "GET", "POST", "POST", "PUT", "DELETE", "PATCH", "HEAD", "OPTIONS", "TRACE",
                "CONNECT", "FOO");
        String path = pick(r, "/v1/models", "/models", "/v1/models/" + id, "/models/" + id, "/v1/models/" + id + "/load",
                "/v1/models/" + id + "/unload", "/models/" + id + "/load", "/health", "/v1/health", "/", "/v1",
                "/v1/chat/completions", "/v1/completions", "/v1/embeddings", "/api/tags", "/api/chat", "/api/generate",
                "/api/version", "/api/show", "/api/ps", "/v1/messages", "/v1/messages/count_tokens", "/v1/responses",
                "/v1/responses/" + id, "/metrics", "/v1/models/" + id + "/load/x",
                "/health?x=" + id, "/v1/models?limit=-1", "//v1//models", "/v1/./models", "/V1/MODELS",
                "/v1/chat/completions/", "/v1/models/" + id + "/unload?force=1");
        Map<String, String> h = new LinkedHashMap<>();
        if (apiKey != null && r.nextInt(4) != 0) {
            h.put("Authorization", "Bearer " + apiKey);
        }
        byte[] body = null;
        if (method.equals("POST") || method.equals("PUT") || method.equals("PATCH")) {
            h.put("Content-Type", "application/json");
            body = pick(r, "", "{}", "null", "{\"keep_alive\":0}", "[1,2").getBytes(StandardCharsets.UTF_8);
        }
        if (method.equals("OPTIONS") && r.nextBoolean()) {
            h.put("Origin", pick(r, "http://localhost:3000", "http://evil.example"));
            h.put("Access-Control-Request-Method", "POST");
            h.put("Access-Control-Request-Headers", "authorization, content-type, x-stainless-os, x-evil");
        }
        // Jetty's parser refuses CONNECT to a path before any route is known: its error cannot have the route's shape
        return new Case(index, "routes", method + " " + path, method.equals("CONNECT") ? "any" : path,
                RawHttp.request(method, path, h, body), method.equals("HEAD"));
    }

    // ---------------------------------------------------------------- malformed HTTP

    private Case badHttp(int index, Random r) {
        String request = switch (r.nextInt(14)) {
            case 0 -> "GARBAGE\r\n\r\n";
            case 1 -> "GET /health HTTP/9.9\r\nHost: x\r\nConnection: close\r\n\r\n";
            case 2 -> "GET /health HTTP/1.1\r\nHost: x\r\nBroken header line\r\nConnection: close\r\n\r\n";
            case 3 -> "GET /health HTTP/1.1\r\nHost: x\r\nX-Big: " + "a".repeat(70_000) + "\r\nConnection: close\r\n\r\n";
            case 4 -> "GET /health?" + "a".repeat(70_000) + " HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n";
            case 5 -> "GET /v1/models/%zz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n";
            case 6 -> "GET /v1/models/%ff%fe HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n";
            case 7 -> "POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nContent-Length: -5\r\nConnection: close\r\n\r\n";
            case 8 -> "POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\nContent-Length: 3\r\n"
                    + "Connection: close\r\n\r\n{}";
            case 9 -> "POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n"
                    + "Content-Length: 2\r\nConnection: close\r\n\r\nzz\r\n{}\r\n0\r\n\r\n";
            case 10 -> "GET http://other.example/health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n";
            case 11 -> "GET /health HTTP/1.0\r\n\r\n";
            case 12 -> "GET /he\u0000alth HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n";
            default -> "GET /health HTTP/1.1\r\nHost: x\r\nX-Bad: a\u0001b\r\nConnection: close\r\n\r\n";
        };
        String first = request.lines().findFirst().orElse("");
        return new Case(index, "http", "malformed HTTP: " + first.substring(0, Math.min(60, first.length())), "any",
                request.getBytes(StandardCharsets.ISO_8859_1), false);
    }
}
