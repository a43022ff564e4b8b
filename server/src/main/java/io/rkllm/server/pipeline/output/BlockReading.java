package io.rkllm.server.pipeline.output;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * How the tool-call block being read gives its calls: by its family's reader, or, after a header that named the
 * function (gpt-oss's), as the JSON arguments of that one call. Only calls of offered tools count: a block that names
 * another is no call at all, as llama-server reads it.
 *
 * @param block the block's syntax; null after a header
 * @param headerCall the function a header named; null in a block
 * @param opened the block's opening marker, which some readers read as part of the body
 */
record BlockReading(Syntax.ToolBlock block, String headerCall, String opened, OfferedTools tools)
        implements StreamedCalls.Reading {

    static BlockReading of(Syntax.ToolBlock block, String opened, OfferedTools tools) {
        return new BlockReading(block, null, opened, tools);
    }

    static BlockReading header(String call, OfferedTools tools) {
        return new BlockReading(null, call, "", tools);
    }

    /** The calls of offered tools in a block's body, all of them or none. */
    Optional<List<FunctionCall>> calls(String body) {
        return read(readerText(body));
    }

    /** What the block's reader reads of its body: with the opening marker, for a block whose body starts with it. */
    String readerText(String body) {
        return block != null && block.openInBody() ? opened + body : body;
    }

    @Override
    public Optional<List<FunctionCall>> read(String text) {
        Optional<List<FunctionCall>> calls;
        if (block != null) {
            calls = block.reader().read(text, tools);
        } else {
            calls = CallJson.object(text).map(args -> List.of(new FunctionCall(headerCall, args)));
        }
        if (calls.isEmpty() || calls.get().isEmpty()) {
            return Optional.empty();
        }
        List<FunctionCall> offered = new ArrayList<>();
        for (FunctionCall call : calls.get()) {
            Optional<String> name = tools.resolve(call.name());
            if (name.isEmpty()) {
                return Optional.empty(); // a tool the request did not offer: as llama-server, not a call
            }
            offered.add(new FunctionCall(name.get(), call.argumentsJson(), call.id()));
        }
        return Optional.of(offered);
    }

    /** How the block ends while it is open: as its reader says, else as JSON. */
    @Override
    public List<CallEnding> endings(String text) {
        return block != null ? block.reader().endings(text) : Healing.jsonEndings(text);
    }
}
