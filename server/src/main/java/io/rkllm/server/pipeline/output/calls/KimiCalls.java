package io.rkllm.server.pipeline.output.calls;

import io.rkllm.server.pipeline.output.CallJson;
import io.rkllm.server.pipeline.output.CallReader;
import io.rkllm.server.pipeline.output.FunctionCall;
import io.rkllm.server.pipeline.output.OfferedTools;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Kimi K2's calls inside {@code <|tool_calls_section_begin|>...<|tool_calls_section_end|>}: each
 * {@code <|tool_call_begin|>functions.NAME:INDEX<|tool_call_argument_begin|>{json}<|tool_call_end|>} (the end marker
 * may be missing).
 */
public final class KimiCalls implements CallReader {
    static final String CALL = "<|tool_call_begin|>";
    static final String ARGUMENTS = "<|tool_call_argument_begin|>";
    static final String CALL_END = "<|tool_call_end|>";
    static final String SECTION_END = "<|tool_calls_section_end|>";

    @Override
    public Optional<List<FunctionCall>> read(String body, OfferedTools tools) {
        String text = body.strip();
        if (text.endsWith(SECTION_END)) {
            // a bare call followed by the end of a section it never opened
            text = text.substring(0, text.length() - SECTION_END.length()).strip();
        }
        if (!text.startsWith(CALL)) {
            return Optional.empty();
        }
        List<FunctionCall> calls = new ArrayList<>();
        // each call from its marker to the next one's; its end marker, which Kimi K2 Thinking leaves out at times, aside
        for (String part : text.substring(CALL.length()).split("\\Q" + CALL + "\\E", -1)) {
            String span = part.strip();
            if (span.endsWith(CALL_END)) {
                span = span.substring(0, span.length() - CALL_END.length());
            }
            int args = span.indexOf(ARGUMENTS);
            if (args < 0) {
                return Optional.empty();
            }
            String id = span.substring(0, args).strip();
            String name = id.startsWith("functions.") ? id.substring("functions.".length()) : id;
            int colon = name.lastIndexOf(':');
            if (colon > 0 && name.substring(colon + 1).chars().allMatch(Character::isDigit)) {
                name = name.substring(0, colon);
            }
            Optional<String> json = CallJson.object(span.substring(args + ARGUMENTS.length()));
            if (name.isBlank() || json.isEmpty()) {
                return Optional.empty();
            }
            // its id is what it wrote (functions.NAME:INDEX), which its template writes back
            calls.add(new FunctionCall(name, json.get(), Optional.of(id)));
        }
        return Optional.of(calls);
    }

    @Override
    public List<String> markers() {
        return List.of(CALL, ARGUMENTS, CALL_END);
    }
}
