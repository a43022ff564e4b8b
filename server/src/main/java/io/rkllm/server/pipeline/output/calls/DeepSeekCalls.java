package io.rkllm.server.pipeline.output.calls;

import io.rkllm.server.pipeline.output.CallEnding;
import io.rkllm.server.pipeline.output.CallJson;
import io.rkllm.server.pipeline.output.CallReader;
import io.rkllm.server.pipeline.output.FunctionCall;
import io.rkllm.server.pipeline.output.Healing;
import io.rkllm.server.pipeline.output.OfferedTools;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * DeepSeek's calls inside {@code <｜tool▁calls▁begin｜>...<｜tool▁calls▁end｜>}, each
 * {@code <｜tool▁call▁begin｜>...<｜tool▁call▁end｜>}: R1 writes {@code function<｜tool▁sep｜>NAME} and the arguments
 * in a {@code ```json} fence; V3.1 writes {@code NAME<｜tool▁sep｜>} and the JSON arguments.
 */
public final class DeepSeekCalls implements CallReader {
    static final String CALL = "<｜tool▁call▁begin｜>";
    static final String CALL_END = "<｜tool▁call▁end｜>";
    static final String SEP = "<｜tool▁sep｜>";

    @Override
    public Optional<List<FunctionCall>> read(String body, OfferedTools tools) {
        List<String> spans = TagSpans.of(body, CALL, CALL_END);
        if (spans == null || spans.isEmpty()) {
            return Optional.empty();
        }
        List<FunctionCall> calls = new ArrayList<>();
        for (String span : spans) {
            int sep = span.indexOf(SEP);
            if (sep < 0) {
                return Optional.empty();
            }
            String head = span.substring(0, sep).strip();
            String rest = span.substring(sep + SEP.length());
            String name;
            String arguments;
            if (head.equals("function") || head.isEmpty()) {
                int line = rest.indexOf('\n');
                if (line < 0) {
                    return Optional.empty();
                }
                name = rest.substring(0, line).strip();
                arguments = unfenced(rest.substring(line + 1));
            } else {
                name = head;
                arguments = rest;
            }
            Optional<String> json = CallJson.object(arguments);
            if (name.isEmpty() || json.isEmpty()) {
                return Optional.empty();
            }
            calls.add(new FunctionCall(name, json.get()));
        }
        return Optional.of(calls);
    }

    /** The text of a Markdown code fence ({@code ```json ... ```}), or the text itself when it has none. */
    private static String unfenced(String text) {
        String t = text.strip();
        if (!t.startsWith("```")) {
            return t;
        }
        int line = t.indexOf('\n');
        int end = t.lastIndexOf("```");
        return line < 0 || end <= line ? t : t.substring(line + 1, end);
    }

    @Override
    public List<String> markers() {
        return List.of(CALL, CALL_END, SEP);
    }

    /** R1's call closes its fence, then itself; V3.1's only itself; after a call, nothing is missing. */
    @Override
    public List<CallEnding> endings(String body) {
        String text = Healing.withoutPartialMarker(body, List.of(CALL, CALL_END, SEP, "```"));
        return Healing.json(text).map(json -> List.of(new CallEnding(text, json + "\n```" + CALL_END),
                new CallEnding(text, json + CALL_END), new CallEnding(text, ""))).orElse(List.of());
    }
}
