package io.rkllm.tools.reliability;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.ByteArrayOutputStream;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

/**
 * The fuzzer's damage to valid requests: a value replaced, removed or added somewhere in the tree, or bytes of the
 * serialised body broken.
 *
 * @param hugeBytes the size of the largest bodies sent (beyond the server's limit to test the 413)
 */
record JsonMutations(int hugeBytes) {
    private static final JsonNodeFactory NODES = JsonNodeFactory.instance;

    /** Replaces, removes or adds one value somewhere in the tree; says what it did. */
    String mutate(ObjectNode root, Random r) {
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

    static void collect(JsonNode node, String prefix, List<String> out) {
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

    JsonNode randomValue(Random r) {
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

    static JsonNode nested(Random r, int depth) {
        JsonNode node = NODES.textNode("deep");
        for (int i = 0; i < depth; i++) {
            node = r.nextBoolean() ? NODES.arrayNode().add(node) : NODES.objectNode().set("k", node);
        }
        return node;
    }

    static String oddString(Random r, int length) {
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
    static <T> T pick(Random r, T... options) {
        return options[r.nextInt(options.length)];
    }

    /** Byte-level damage to a serialised body. */
    byte[] rawMutation(byte[] bytes, Random r, List<String> done) {
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

    static int indexAfterQuote(byte[] bytes, int from) {
        for (int i = from; i < bytes.length; i++) {
            if (bytes[i] == '"') {
                return i + 1;
            }
        }
        return from;
    }

    // ---------------------------------------------------------------- every field null
}
