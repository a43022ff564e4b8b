package io.rkllm.server.pipeline.output.calls;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.rkllm.server.pipeline.output.CallEnding;
import io.rkllm.server.pipeline.output.CallJson;
import io.rkllm.server.pipeline.output.CallReader;
import io.rkllm.server.pipeline.output.FunctionCall;
import io.rkllm.server.pipeline.output.Healing;
import io.rkllm.server.pipeline.output.OfferedTools;
import java.util.List;
import java.util.Optional;

/**
 * GLM's calls (GLM-4.5 to 4.7): the function's name, then each argument as
 * {@code <arg_key>KEY</arg_key><arg_value>VALUE</arg_value>} (line breaks between them or not), one call a block.
 * Values are text, typed by the tool's schema as {@link XmlFunctions} does.
 */
public final class KeyValueTags implements CallReader {
    private static final String KEY = "<arg_key>";
    private static final String KEY_END = "</arg_key>";
    private static final String VALUE = "<arg_value>";
    private static final String VALUE_END = "</arg_value>";

    @Override
    public Optional<List<FunctionCall>> read(String body, OfferedTools tools) {
        int first = body.indexOf(KEY);
        String name = (first < 0 ? body : body.substring(0, first)).strip();
        if (name.isEmpty() || name.contains("<") || name.contains("\n")) {
            return Optional.empty();
        }
        ObjectNode arguments = CallJson.newObject();
        int at = first < 0 ? body.length() : first;
        while (at < body.length()) {
            int key = body.indexOf(KEY, at);
            if (key < 0) {
                if (!body.substring(at).isBlank()) {
                    return Optional.empty();
                }
                break;
            }
            int keyEnd = body.indexOf(KEY_END, key);
            int value = body.indexOf(VALUE, Math.max(keyEnd, 0));
            int valueEnd = body.indexOf(VALUE_END, Math.max(value, 0));
            if (!body.substring(at, key).isBlank() || keyEnd < 0 || value < 0 || valueEnd < 0
                    || !body.substring(keyEnd + KEY_END.length(), value).isBlank()) {
                return Optional.empty();
            }
            String k = body.substring(key + KEY.length(), keyEnd).strip();
            String v = body.substring(value + VALUE.length(), valueEnd);
            arguments.set(k, CallJson.typed(v, tools.parameterType(name, k)));
            at = valueEnd + VALUE_END.length();
        }
        return Optional.of(List.of(new FunctionCall(name, CallJson.write(arguments))));
    }

    @Override
    public List<String> markers() {
        return List.of(KEY, KEY_END, VALUE, VALUE_END);
    }

    /** Inside a value: it closes; else nothing is missing. */
    @Override
    public List<CallEnding> endings(String body) {
        String text = Healing.withoutPartialMarker(body, List.of(KEY, KEY_END, VALUE, VALUE_END));
        return List.of(new CallEnding(text, VALUE_END), new CallEnding(text, ""));
    }
}
