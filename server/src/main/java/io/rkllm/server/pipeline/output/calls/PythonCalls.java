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
 * Calls written as a Python list of calls with keyword arguments, LFM2's
 * ({@code <|tool_call_start|>[get_time(city="Paris"), f(a=1)]<|tool_call_end|>}): Python's literals become JSON.
 */
public final class PythonCalls implements CallReader {

    @Override
    public Optional<List<FunctionCall>> read(String body, OfferedTools tools) {
        Literals in = new Literals(body, 0, Literals.Dialect.PYTHON);
        List<FunctionCall> calls = new ArrayList<>();
        try {
            boolean bracketed = in.peek() == '[';
            if (bracketed) {
                in.expect('[');
            }
            while (true) {
                String name = in.name();
                in.expect('(');
                ObjectNode arguments = CallJson.newObject();
                if (in.peek() == ')') {
                    in.expect(')');
                } else {
                    while (true) {
                        String key = in.name();
                        in.expect('=');
                        arguments.set(key, in.value());
                        char c = in.peek();
                        in.expect(c == ',' ? ',' : ')');
                        if (c != ',') {
                            break;
                        }
                    }
                }
                calls.add(new FunctionCall(name, CallJson.write(arguments)));
                char c = in.peek();
                if (c == ',') {
                    in.expect(',');
                    continue;
                }
                if (bracketed) {
                    in.expect(']');
                }
                break;
            }
            return in.peek() == 0 ? Optional.of(calls) : Optional.empty();
        } catch (IllegalArgumentException e) {
            return Optional.empty();
        }
    }

    /** Python's strings and brackets closed. */
    @Override
    public List<CallEnding> endings(String body) {
        return Healing.python(body).map(tail -> List.of(new CallEnding(body, tail))).orElse(List.of());
    }
}
