package io.rkllm.server.pipeline.output.calls;

import com.fasterxml.jackson.databind.JsonNode;
import io.rkllm.server.pipeline.output.CallEnding;
import io.rkllm.server.pipeline.output.CallJson;
import io.rkllm.server.pipeline.output.CallReader;
import io.rkllm.server.pipeline.output.FunctionCall;
import io.rkllm.server.pipeline.output.Healing;
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

    /** The open string's marker, then the open brackets' closers. */
    @Override
    public List<CallEnding> endings(String body) {
        String text = Healing.withoutPartialMarker(body, List.of(Literals.GEMMA_QUOTE));
        StringBuilder closers = new StringBuilder();
        boolean inString = false;
        for (int i = 0; i < text.length(); i++) {
            if (text.startsWith(Literals.GEMMA_QUOTE, i)) {
                inString = !inString;
                i += Literals.GEMMA_QUOTE.length() - 1;
            } else if (!inString) {
                char c = text.charAt(i);
                if (c == '{' || c == '[') {
                    closers.append(c == '{' ? '}' : ']');
                } else if ((c == '}' || c == ']') && !closers.isEmpty()) {
                    closers.setLength(closers.length() - 1);
                }
            }
        }
        return List.of(new CallEnding(text, (inString ? Literals.GEMMA_QUOTE : "") + closers.reverse()));
    }
}
