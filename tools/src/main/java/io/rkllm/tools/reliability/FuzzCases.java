package io.rkllm.tools.reliability;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.rkllm.server.harness.RawHttp;
import java.io.ByteArrayOutputStream;
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
    private static final JsonNodeFactory NODES = JsonNodeFactory.instance;

    /** One request: the exact bytes, what it is, and whether it is a HEAD request (no body in the answer). */
    public record Case(int index, String category, String description, String path, byte[] bytes, boolean head) {
    }

    private final long seed;
    private final List<String> models;
    private final String apiKey;
    private final int hugeBytes;
    private final FuzzTemplates templates;
    private final JsonMutations mutations;

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
        this.templates = new FuzzTemplates(this.models);
        this.mutations = new JsonMutations(hugeBytes);
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
        var t = templates.template(r);
        ObjectNode body = t.getValue();
        int count = 1 + r.nextInt(3);
        List<String> done = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            done.add(mutations.mutate(body, r));
        }
        byte[] bytes = body.toString().getBytes(StandardCharsets.UTF_8);
        if (r.nextInt(5) == 0) {
            bytes = mutations.rawMutation(bytes, r, done);
        }
        return post(index, "mutated", String.join("; ", done), t.getKey(), bytes);
    }

    private Case nullFields(int index, Random r) {
        var t = templates.template(r);
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
        String path = JsonMutations.pick(r, "/v1/chat/completions", "/v1/completions", "/chat/completions",
                "/v1/models/" + templates.model(r) + "/load", "/api/chat", "/api/generate", "/api/show", "/v1/messages");
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
                body = JsonMutations.pick(r, "null", "true", "42", "\"text\"", "[]", "[{}]", "{", "}", "{\"model\":}", "{'a':1}",
                        "{\"messages\":[", "NaN", "{\"a\":1,}", "{\"max_tokens\":1e999999}", "{\"max_tokens\":-0}",
                        "{\"max_tokens\":0x10}", "{\"a\" 1}", "\u0000", " ", "\r\n")
                        .getBytes(StandardCharsets.UTF_8);
                description = "not a JSON object";
            }
            case 3 -> {
                int depth = JsonMutations.pick(r, 65, 1000, 100_000);
                body = ("[".repeat(depth) + "]".repeat(depth)).getBytes(StandardCharsets.UTF_8);
                description = "arrays nested " + depth + " deep";
            }
            case 4 -> {
                int depth = JsonMutations.pick(r, 63, 65, 5000);
                body = ("{\"messages\":" + "{\"a\":".repeat(depth) + "1" + "}".repeat(depth) + "}")
                        .getBytes(StandardCharsets.UTF_8);
                description = "objects nested " + depth + " deep";
            }
            case 5 -> {
                body = ("{\"model\":\"" + templates.model(r) + "\",\"max_tokens\":" + "9".repeat(JsonMutations.pick(r, 19, 65, 5000))
                        + ",\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}").getBytes(StandardCharsets.UTF_8);
                description = "a very long number";
            }
            case 6 -> {
                int n = hugeBytes;
                StringBuilder s = new StringBuilder(n + 200).append("{\"model\":\"").append(templates.model(r))
                        .append("\",\"messages\":[{\"role\":\"user\",\"content\":\"");
                s.append("a".repeat(n));
                s.append("\"}]}");
                body = s.toString().getBytes(StandardCharsets.UTF_8);
                description = "a " + n + "-byte body";
            }
            case 7 -> {
                StringBuilder s = new StringBuilder("{\"model\":\"" + templates.model(r) + "\",\"messages\":[");
                int n = JsonMutations.pick(r, 1025, 3000, 20000);
                for (int i = 0; i < n; i++) {
                    s.append(i == 0 ? "" : ",").append("{\"role\":\"user\",\"content\":\"m\"}");
                }
                body = s.append("]}").toString().getBytes(StandardCharsets.UTF_8);
                description = n + " messages";
            }
            case 8 -> {
                StringBuilder s = new StringBuilder("{\"model\":\"" + templates.model(r)
                        + "\",\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}],\"stop\":[");
                int n = JsonMutations.pick(r, 17, 500);
                for (int i = 0; i < n; i++) {
                    s.append(i == 0 ? "" : ",").append('"').append("s".repeat(1 + r.nextInt(300))).append('"');
                }
                body = s.append("]}").toString().getBytes(StandardCharsets.UTF_8);
                description = n + " stop strings";
            }
            case 9 -> {
                StringBuilder s = new StringBuilder("{");
                int n = JsonMutations.pick(r, 1000, 50000);
                for (int i = 0; i < n; i++) {
                    s.append(i == 0 ? "" : ",").append("\"k").append(i).append("\":").append(i);
                }
                body = s.append('}').toString().getBytes(StandardCharsets.UTF_8);
                description = n + " unknown fields";
            }
            case 10 -> {
                body = ("{\"model\":\"" + templates.model(r) + "\",\"messages\":[{\"role\":\"user\",\"content\":\"\\u"
                        + JsonMutations.pick(r, "", "12", "zzzz", "d800\\u0041", "0000") + "\"}]}").getBytes(StandardCharsets.UTF_8);
                description = "a bad unicode escape";
            }
            case 11 -> {
                String s = "{\"model\":\"" + templates.model(r) + "\",\"messages\":[{\"role\":\"user\",\"content\":\"caf\u00e9\"}]}";
                body = s.getBytes(JsonMutations.pick(r, StandardCharsets.ISO_8859_1, StandardCharsets.UTF_16LE, StandardCharsets.UTF_16BE));
                description = "not UTF-8";
            }
            case 12 -> {
                body = "model=m&messages=hi".getBytes(StandardCharsets.UTF_8);
                description = "a form body";
            }
            default -> {
                body = ("{\"model\":\"" + templates.model(r) + "\",\"messages\":[{\"role\":\"user\",\"content\":\""
                        + "\u0001\u0002\t\b\f" + "\"}]}").getBytes(StandardCharsets.UTF_8);
                description = "raw control characters in a string";
            }
        }
        return post(index, "bad-body", description, path, body);
    }

    // ---------------------------------------------------------------- odd headers

    private Case oddHeaders(int index, Random r) {
        var t = templates.template(r);
        byte[] body = t.getValue().toString().getBytes(StandardCharsets.UTF_8);
        Map<String, String> h = new LinkedHashMap<>();
        String description;
        switch (r.nextInt(12)) {
            case 0 -> {
                String type = JsonMutations.pick(r, "text/plain", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x",
                        "application/json; charset=latin1", "application/json; charset=utf-16", "*/*", "",
                        "application/xml", "garbage", "application/json;;;", "application/x-ndjson");
                h.put("Content-Type", type);
                description = "Content-Type: " + type;
            }
            case 1 -> {
                h.put("Content-Encoding", JsonMutations.pick(r, "gzip", "deflate", "br", "identity", "x-unknown"));
                description = "a Content-Encoding the body does not have";
            }
            case 2 -> {
                h.put("Expect", "100-continue");
                description = "Expect: 100-continue";
            }
            case 3 -> {
                h.put("Authorization", JsonMutations.pick(r, "Bearer", "Bearer ", "Basic dXNlcjpwYXNz", "Bearer " + "k".repeat(5000),
                        "bearer wrong", "Bearer \u00e9\u00e9"));
                description = "an odd Authorization header";
            }
            case 4 -> {
                h.put("X-Api-Key", JsonMutations.pick(r, "", "wrong", "x".repeat(3000)));
                description = "an odd X-Api-Key";
            }
            case 5 -> {
                h.put("x-request-id", JsonMutations.pick(r, "", "a b", "<script>", "x".repeat(500), "id\u00e9"));
                description = "an odd x-request-id";
            }
            case 6 -> {
                h.put("X-OpenWebUI-Chat-Id", JsonMutations.pick(r, "", " ", "x".repeat(2000), "chat\u00e9", "../../x"));
                description = "an odd X-OpenWebUI-Chat-Id";
            }
            case 7 -> {
                h.put("Origin", JsonMutations.pick(r, "http://evil.example", "null", "", "http://localhost:3000"));
                description = "an Origin";
            }
            case 8 -> {
                h.put("Accept", JsonMutations.pick(r, "text/html", "application/xml", "*/*;q=0", "text/event-stream"));
                description = "an odd Accept";
            }
            case 9 -> {
                h.put("Accept-Encoding", JsonMutations.pick(r, "gzip", "br", "zstd", "*"));
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
        String id = JsonMutations.pick(r, templates.model(r), templates.model(r).toUpperCase(), "qwen", "nonexistent", "..", "..%2F..%2Fetc%2Fpasswd",
                "%2e%2e", "a%2Fb", "%00", "%25", "%C3%A9", "x".repeat(2000), "m:latest", "%0d%0aX-Injected:%201",
                "%E2%80%A8", "con", "~root", "%2Fetc%2Fpasswd");
        String method = JsonMutations.pick(r, "GET", "GET", "POST", "POST", "PUT", "DELETE", "PATCH", "HEAD", "OPTIONS", "TRACE",
                "CONNECT", "FOO");
        String path = JsonMutations.pick(r, "/v1/models", "/models", "/v1/models/" + id, "/models/" + id, "/v1/models/" + id + "/load",
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
            body = JsonMutations.pick(r, "", "{}", "null", "{\"keep_alive\":0}", "[1,2").getBytes(StandardCharsets.UTF_8);
        }
        if (method.equals("OPTIONS") && r.nextBoolean()) {
            h.put("Origin", JsonMutations.pick(r, "http://localhost:3000", "http://evil.example"));
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
