package io.rkllm.server.pipeline;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.rkllm.server.engine.contract.cache.Keys;
import io.rkllm.server.pipeline.output.OutputEvent;
import io.rkllm.server.pipeline.output.OutputScanner;
import io.rkllm.server.pipeline.output.ScannerOptions;
import io.rkllm.server.pipeline.output.ThinkStripper;
import io.rkllm.server.pipeline.request.ChatImage;
import io.rkllm.server.pipeline.request.ChatMessage;
import java.util.ArrayList;
import java.util.List;
import java.util.function.UnaryOperator;
import java.util.regex.Pattern;

/**
 * Normalised identities of messages, so that a client's copy of the conversation can be compared
 * with what the KV cache holds: think blocks and Open WebUI's reasoning {@code <details>} removed,
 * whitespace trimmed, tool calls as name plus compact arguments.
 */
final class MessageKeys {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Pattern DETAILS = Pattern.compile(
            "<details\\s+type=\"reasoning\"[^>]*>.*?</details>\\s*", Pattern.DOTALL);
    private static final Pattern THINK_SWITCH = Pattern.compile("^\\s*/(no_)?think\\b\\s*");

    private MessageKeys() {
    }

    static String key(ChatMessage message) {
        return switch (message.role()) {
            case USER -> "U:" + userText(message.content()) + pictures(message);
            case TOOL -> "T:" + message.content().strip();
            case SYSTEM -> "S:" + message.content().strip();
            case ASSISTANT -> assistant(assistantText(message.content()), message.toolCalls().stream()
                    .map(c -> new OutputEvent.ToolCall(0, c.id(), c.name(), c.argumentsJson())).toList());
        };
    }

    /** The pictures a user message shows the model, by digest: another picture is another message. */
    private static String pictures(ChatMessage message) {
        StringBuilder s = new StringBuilder();
        for (ChatImage image : message.images()) {
            s.append('\u0003').append(image.digest());
        }
        return s.toString();
    }

    /**
     * The key of a new message the pipeline rewrote (a RAG question, remembered as the client will send it back),
     * after the vision step changed it: {@code placeholders} put before its text, its text passed through
     * {@code defuse}, its pictures those of {@code after}.
     */
    static String rewritten(String key, ChatMessage before, ChatMessage after, String placeholders,
                            UnaryOperator<String> defuse) {
        String head = key.substring(0, 2);
        String body = key.substring(2);
        String old = pictures(before);
        if (body.endsWith(old)) {
            body = body.substring(0, body.length() - old.length());
        }
        return head + placeholders + defuse.apply(body) + pictures(after);
    }

    static List<String> keys(List<ChatMessage> messages) {
        List<String> keys = new ArrayList<>(messages.size());
        for (ChatMessage m : messages) {
            keys.add(key(m));
        }
        return keys;
    }

    /** The key of an assistant reply as the model generated it (raw text with tags). */
    static String generated(String text, ScannerOptions options) {
        OutputScanner scanner = new OutputScanner(new ScannerOptions(List.of(), true, options.startInsideThink(),
                options.parseToolCalls(), options.syntax(), options.tools()));
        List<OutputEvent> events = new ArrayList<>(scanner.feed(text));
        events.addAll(scanner.finish());
        StringBuilder content = new StringBuilder();
        List<OutputEvent.ToolCall> calls = new ArrayList<>();
        for (OutputEvent e : events) {
            if (e instanceof OutputEvent.Content c) {
                content.append(c.text());
            } else if (e instanceof OutputEvent.ToolCall t) {
                calls.add(t);
            }
        }
        return assistant(content.toString(), calls);
    }

    /** User text as the model should see it: a leading /think or /no_think switch removed. */
    static String userText(String content) {
        return THINK_SWITCH.matcher(content).replaceFirst("").strip();
    }

    /**
     * Assistant text as the model should see it again: reasoning removed. An answer without reasoning stays exactly
     * as the client sent it back, its whitespace too: a GGUF model's cache holds the answer as the model wrote it,
     * and the follow-up reuses it only as far as the text is the same (the key trims it anyway).
     */
    static String assistantText(String content) {
        String withoutDetails = DETAILS.matcher(content).replaceAll("");
        if (withoutDetails.equals(content) && !content.contains(OutputScanner.THINK_OPEN)
                && !content.contains(OutputScanner.THINK_CLOSE)) {
            return content;
        }
        return ThinkStripper.strip(withoutDetails).strip();
    }

    static String digest(List<String> keys) {
        return Keys.digest(keys);
    }

    private static String assistant(String content, List<OutputEvent.ToolCall> calls) {
        StringBuilder key = new StringBuilder("A:").append(content.strip());
        for (OutputEvent.ToolCall call : calls) {
            key.append('\u0001').append(call.name()).append('\u0002').append(compact(call.argumentsJson()));
        }
        return key.toString();
    }

    /**
     * Arguments as one canonical text: compact, object keys sorted. Clients send a call's arguments back in their
     * own key order (Claude Code does), and that is still the call the model made.
     */
    private static String compact(String json) {
        try {
            return sorted(JSON.readTree(json)).toString();
        } catch (Exception e) {
            return json.strip();
        }
    }

    private static JsonNode sorted(JsonNode node) {
        if (node.isObject()) {
            ObjectNode out = JSON.createObjectNode();
            List<String> names = new ArrayList<>();
            node.fieldNames().forEachRemaining(names::add);
            names.sort(null);
            for (String name : names) {
                out.set(name, sorted(node.get(name)));
            }
            return out;
        }
        if (node.isArray()) {
            ArrayNode out = JSON.createArrayNode();
            node.forEach(item -> out.add(sorted(item)));
            return out;
        }
        return node;
    }
}
