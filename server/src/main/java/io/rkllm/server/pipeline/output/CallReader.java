package io.rkllm.server.pipeline.output;

import java.util.List;
import java.util.Optional;

/** Reads the calls in one tool-call block of a model's output, as its family writes them. */
@FunctionalInterface
public interface CallReader {

    /**
     * The calls in {@code body}, in order.
     *
     * @param body the block's text (without its markers, unless the block's opening marker is part of the body)
     * @param tools the tools the request offered: some formats write every argument as text, typed by the schema
     * @return the calls; empty when the text is not a well-formed block of calls (it is then passed on verbatim)
     */
    Optional<List<FunctionCall>> read(String body, OfferedTools tools);

    /** Markers inside a block (between calls, around arguments) that an engine must write as text. */
    default List<String> markers() {
        return List.of();
    }

    /**
     * Ways to end a block that has not closed yet so that it reads as calls, tried in order: the calls streamed
     * before their block closes are what reading it so ended and reading it with more text before the end agree
     * on ({@link StreamedCalls}). The default: the block is JSON, its open strings and brackets closed.
     *
     * @param body the block's text so far, as {@link #read} takes it
     * @return the endings; none when the text cannot end where it is (inside an escape)
     */
    default List<CallEnding> endings(String body) {
        return Healing.jsonEndings(body);
    }
}
