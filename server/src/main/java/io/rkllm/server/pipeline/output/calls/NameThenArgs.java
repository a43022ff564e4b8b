package io.rkllm.server.pipeline.output.calls;

import io.rkllm.server.pipeline.output.CallJson;
import io.rkllm.server.pipeline.output.CallReader;
import io.rkllm.server.pipeline.output.FunctionCall;
import io.rkllm.server.pipeline.output.OfferedTools;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Mistral's newer calls (Mistral Small 3.2, Devstral, Ministral, Magistral): {@code [TOOL_CALLS]NAME[ARGS]{json}},
 * again for each further call, an optional {@code [CALL_ID]id} before {@code [ARGS]}. The block starts after the
 * first {@code [TOOL_CALLS]} and runs to the end of the output, the others inside it.
 */
public final class NameThenArgs implements CallReader {
    static final String CALLS = "[TOOL_CALLS]";
    static final String ARGS = "[ARGS]";
    static final String CALL_ID = "[CALL_ID]";

    @Override
    public Optional<List<FunctionCall>> read(String body, OfferedTools tools) {
        List<FunctionCall> calls = new ArrayList<>();
        for (String part : body.split("\\Q" + CALLS + "\\E", -1)) {
            if (part.isBlank()) {
                continue;
            }
            int args = part.indexOf(ARGS);
            if (args < 0) {
                return Optional.empty();
            }
            String name = part.substring(0, args);
            int id = name.indexOf(CALL_ID);
            if (id >= 0) {
                name = name.substring(0, id);
            }
            Optional<String> arguments = CallJson.object(part.substring(args + ARGS.length()));
            if (name.isBlank() || arguments.isEmpty()) {
                return Optional.empty();
            }
            calls.add(new FunctionCall(name.strip(), arguments.get()));
        }
        return calls.isEmpty() ? Optional.empty() : Optional.of(calls);
    }

    @Override
    public List<String> markers() {
        return List.of(ARGS, CALL_ID);
    }
}
