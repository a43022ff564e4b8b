package io.rkllm.server.pipeline.output.calls;

import com.fasterxml.jackson.databind.JsonNode;
import io.rkllm.server.pipeline.output.CallJson;
import io.rkllm.server.pipeline.output.CallReader;
import io.rkllm.server.pipeline.output.FunctionCall;
import io.rkllm.server.pipeline.output.OfferedTools;
import java.util.List;
import java.util.Optional;

/**
 * Gemma 4's call, the text of one {@code <|tool_call>...<tool_call|>} block: {@code call:NAME{key:value,...}},
 * strings between {@code <|"|>} markers, keys bare, numbers, booleans, null, lists and objects as JSON has them.
 */
public final class GemmaCalls implements CallReader {
    private static final String CALL = "call:";

    @Override
    public Optional<List<FunctionCall>> read(String body, OfferedTools tools) {
        String text = body.strip();
        if (!text.startsWith(CALL)) {
            return Optional.empty();
        }
        int open = text.indexOf('{');
        if (open < 0) {
            return Optional.empty();
        }
        String name = text.substring(CALL.length(), open).strip();
        Literals in = new Literals(text, open, Literals.Dialect.GEMMA);
        try {
            JsonNode arguments = in.value();
            if (name.isEmpty() || !arguments.isObject() || in.peek() != 0) {
                return Optional.empty();
            }
            return Optional.of(List.of(new FunctionCall(name, CallJson.write(arguments))));
        } catch (IllegalArgumentException e) {
            return Optional.empty();
        }
    }

    @Override
    public List<String> markers() {
        return List.of(Literals.GEMMA_QUOTE);
    }
}
