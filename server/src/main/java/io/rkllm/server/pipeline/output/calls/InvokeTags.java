package io.rkllm.server.pipeline.output.calls;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.rkllm.server.pipeline.output.CallEnding;
import io.rkllm.server.pipeline.output.CallJson;
import io.rkllm.server.pipeline.output.CallReader;
import io.rkllm.server.pipeline.output.FunctionCall;
import io.rkllm.server.pipeline.output.Healing;
import io.rkllm.server.pipeline.output.OfferedTools;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Calls as {@code <invoke name="NAME"><parameter name="KEY">VALUE</parameter></invoke>}: MiniMax-M2's, and
 * DeepSeek V3.2's DSML, whose tags start with {@code ｜DSML｜} and whose parameters say {@code string="true"} (the
 * value is text) or {@code string="false"} (JSON). Values without that attribute are typed by the tool's schema.
 */
public final class InvokeTags implements CallReader {
    private static final Pattern ATTRIBUTE = Pattern.compile("(\\w+)=\"([^\"]*)\"");

    private final String prefix;

    /** @param prefix what every tag's name starts with: {@code ""}, or DeepSeek's {@code ｜DSML｜} */
    public InvokeTags(String prefix) {
        this.prefix = prefix;
    }

    @Override
    public Optional<List<FunctionCall>> read(String body, OfferedTools tools) {
        List<String> invokes = TagSpans.of(body, "<" + prefix + "invoke ", "</" + prefix + "invoke>");
        if (invokes == null || invokes.isEmpty()) {
            return Optional.empty();
        }
        List<FunctionCall> calls = new ArrayList<>();
        for (String invoke : invokes) {
            int headEnd = invoke.indexOf('>');
            String name = headEnd < 0 ? null : attributes(invoke.substring(0, headEnd)).name;
            if (name == null || name.isBlank()) {
                return Optional.empty();
            }
            List<String> parameters = TagSpans.of(invoke.substring(headEnd + 1), "<" + prefix + "parameter ",
                    "</" + prefix + "parameter>");
            if (parameters == null) {
                return Optional.empty();
            }
            ObjectNode arguments = CallJson.newObject();
            for (String parameter : parameters) {
                int end = parameter.indexOf('>');
                Attributes a = end < 0 ? new Attributes(null, null) : attributes(parameter.substring(0, end));
                if (a.name == null) {
                    return Optional.empty();
                }
                String value = parameter.substring(end + 1);
                Optional<String> type = a.string == null ? tools.parameterType(name, a.name)
                        : Optional.of(a.string.equals("true") ? "string" : "json");
                arguments.set(a.name, CallJson.typed(type.isPresent() && !type.get().equals("string")
                        ? value.strip() : TagSpans.value(value), type));
            }
            calls.add(new FunctionCall(name.strip(), CallJson.write(arguments)));
        }
        return Optional.of(calls);
    }

    private record Attributes(String name, String string) {
    }

    private static Attributes attributes(String head) {
        String name = null;
        String string = null;
        Matcher m = ATTRIBUTE.matcher(head);
        while (m.find()) {
            if (m.group(1).equals("name")) {
                name = m.group(2);
            } else if (m.group(1).equals("string")) {
                string = m.group(2);
            }
        }
        return new Attributes(name, string);
    }

    @Override
    public List<String> markers() {
        return List.of("</" + prefix + "invoke>", "</" + prefix + "parameter>");
    }

    /** Inside a value: it and its invoke close; between parameters: the invoke closes; after it, nothing. */
    @Override
    public List<CallEnding> endings(String body) {
        String parameterEnd = "</" + prefix + "parameter>";
        String invokeEnd = "</" + prefix + "invoke>";
        String text = Healing.withoutPartialMarker(body, List.of("<" + prefix + "invoke ", invokeEnd,
                "<" + prefix + "parameter ", parameterEnd));
        return List.of(new CallEnding(text, parameterEnd + "\n" + invokeEnd), new CallEnding(text, "\n" + invokeEnd),
                new CallEnding(text, ""));
    }
}
