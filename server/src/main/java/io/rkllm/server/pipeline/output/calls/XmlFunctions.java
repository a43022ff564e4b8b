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

/**
 * Qwen3-Coder's XML calls, which Qwen3.5, Nemotron 3 and Seed-OSS write too:
 * {@code <function=NAME>\n<parameter=KEY>\nVALUE\n</parameter>\n</function>}, one or more in a block. Every value is
 * text: a parameter the tool declares a string keeps it, any other is read as JSON when it is JSON. Qwen3-Coder's
 * template puts each value on lines of its own: the line break after the opening tag and the one before the closing
 * tag are the format's, not the value's; Seed-OSS writes values between the tags as they are.
 */
public final class XmlFunctions implements CallReader {
    private static final String FUNCTION = "<function=";
    private static final String FUNCTION_END = "</function>";
    private static final String PARAMETER = "<parameter=";
    private static final String PARAMETER_END = "</parameter>";

    private final boolean valuesOnOwnLines;

    /** @param valuesOnOwnLines the format writes a line break after a value's opening tag and before its closing one */
    public XmlFunctions(boolean valuesOnOwnLines) {
        this.valuesOnOwnLines = valuesOnOwnLines;
    }

    @Override
    public Optional<List<FunctionCall>> read(String body, OfferedTools tools) {
        List<String> functions = TagSpans.of(body, FUNCTION, FUNCTION_END);
        if (functions == null || functions.isEmpty()) {
            return Optional.empty();
        }
        List<FunctionCall> calls = new ArrayList<>();
        for (String function : functions) {
            int nameEnd = function.indexOf('>');
            if (nameEnd <= 0) {
                return Optional.empty();
            }
            String name = function.substring(0, nameEnd).strip();
            List<String> parameters = TagSpans.of(function.substring(nameEnd + 1), PARAMETER, PARAMETER_END);
            if (parameters == null) {
                return Optional.empty();
            }
            ObjectNode arguments = CallJson.newObject();
            for (String parameter : parameters) {
                int keyEnd = parameter.indexOf('>');
                if (keyEnd <= 0) {
                    return Optional.empty();
                }
                String key = parameter.substring(0, keyEnd).strip();
                String value = parameter.substring(keyEnd + 1);
                arguments.set(key, CallJson.typed(valuesOnOwnLines ? TagSpans.value(value) : value,
                        tools.parameterType(name, key)));
            }
            calls.add(new FunctionCall(name, CallJson.write(arguments)));
        }
        return Optional.of(calls);
    }

    @Override
    public List<String> markers() {
        return List.of(FUNCTION_END, PARAMETER_END);
    }

    /** Inside a value: it and its function close; between parameters: the function closes; after it, nothing. */
    @Override
    public List<CallEnding> endings(String body) {
        String text = Healing.withoutPartialMarker(body, List.of(FUNCTION, FUNCTION_END, PARAMETER, PARAMETER_END));
        // no line break before the closing tags: one the value ends with may be the format's or the value's
        return List.of(new CallEnding(text, PARAMETER_END + "\n" + FUNCTION_END), new CallEnding(text, "\n" + FUNCTION_END),
                new CallEnding(text, ""));
    }
}
