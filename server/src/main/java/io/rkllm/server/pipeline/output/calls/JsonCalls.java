package io.rkllm.server.pipeline.output.calls;

import com.fasterxml.jackson.databind.JsonNode;
import io.rkllm.server.pipeline.output.CallJson;
import io.rkllm.server.pipeline.output.CallReader;
import io.rkllm.server.pipeline.output.FunctionCall;
import io.rkllm.server.pipeline.output.OfferedTools;
import io.rkllm.server.text.BracketScanner;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Calls written as JSON objects: one object, a list of them, or several in a row (separated by whitespace, commas
 * or semicolons, as Llama 3.2 writes parallel calls). An object names its function by {@code name} (Command R's
 * {@code tool_name}, OpenAI's nested {@code function}) and gives its arguments as {@code arguments} or
 * {@code parameters}, an object or a JSON string. Mistral Nemo's {@code [TOOL_CALLS][...]}, Granite's
 * {@code <|tool_call|>[...]}, Nemotron's {@code <TOOLCALL>[...]}, Command R7B's action list, Llama 3's bare JSON.
 */
public final class JsonCalls implements CallReader {

    @Override
    public Optional<List<FunctionCall>> read(String body, OfferedTools tools) {
        List<FunctionCall> calls = new ArrayList<>();
        int at = 0;
        String text = body.strip();
        while (at < text.length()) {
            char c = text.charAt(at);
            if (Character.isWhitespace(c) || c == ',' || c == ';') {
                at++;
                continue;
            }
            if (c != '{' && c != '[') {
                return Optional.empty();
            }
            int end = valueEnd(text, at);
            if (end < 0) {
                return Optional.empty();
            }
            JsonNode value = CallJson.readTree(text.substring(at, end));
            if (value == null) {
                return Optional.empty();
            }
            for (JsonNode item : value.isArray() ? value : List.of(value)) {
                Optional<FunctionCall> call = call(item);
                if (call.isEmpty()) {
                    return Optional.empty();
                }
                calls.add(call.get());
            }
            at = end;
        }
        return calls.isEmpty() ? Optional.empty() : Optional.of(calls);
    }

    /** One object's call. */
    static Optional<FunctionCall> call(JsonNode item) {
        if (item == null || !item.isObject()) {
            return Optional.empty();
        }
        JsonNode fn = item.path("function").isObject() ? item.get("function") : item;
        JsonNode name = fn.has("name") ? fn.get("name") : fn.get("tool_name");
        if (name == null || !name.isTextual() || name.asText().isBlank()) {
            return Optional.empty();
        }
        JsonNode arguments = fn.has("arguments") ? fn.get("arguments") : fn.get("parameters");
        // the ids these models write (Mistral Nemo's, Command R's "0" of every turn) are not unique across a
        // conversation: the call gets the server's
        return Optional.of(new FunctionCall(name.asText().strip(), CallJson.arguments(arguments)));
    }

    /** Where the JSON value that opens at {@code start} ends (exclusive), -1 when it is not closed. */
    static int valueEnd(String text, int start) {
        BracketScanner scanner = new BracketScanner(text, start, BracketScanner.Syntax.JSON);
        while (scanner.next()) {
            if (scanner.closes() && scanner.depth() == 0) {
                return scanner.index() + 1;
            }
        }
        return -1;
    }
}
