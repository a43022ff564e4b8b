package io.rkllm.server.pipeline;

import io.rkllm.server.domain.Failure;
import io.rkllm.server.domain.FailureException;
import io.rkllm.server.engine.contract.ChatPrompt;
import io.rkllm.server.engine.contract.RuntimeInfo;
import io.rkllm.server.models.ModelDescriptor;
import io.rkllm.server.pipeline.request.ChatRequest;
import java.util.List;

/**
 * Whether a model reads a raw prompt as it is. An engine that renders the chat template itself (llama.cpp) reads any
 * text, and fills in the middle with the model's own tokens for it. An engine whose runtime wraps each prompt in a
 * template (RKLLM) reads it as it is once the template is emptied, which the pipeline can undo only for a family it
 * knows the template of; a model of another family gets its prompt through its template, and the response says so.
 */
final class RawPromptCheck {
    static final String HEADER = "X-RKLLM-Prompt";

    private RawPromptCheck() {
    }

    /**
     * {@code request} as the model will read it: raw, or templated with a note added to {@code notes}.
     *
     * @throws FailureException a suffix the model's engine cannot place
     */
    static ChatRequest apply(ChatRequest request, ModelDescriptor model, RuntimeInfo runtime,
                             List<PreparedChat.Header> notes) {
        if (request.raw().isEmpty()) {
            return request;
        }
        boolean rendersItself = runtime.promptForm() == ChatPrompt.Form.MESSAGES;
        if (request.raw().get().suffix().isPresent() && !rendersItself) {
            // the fill-in-the-middle tokens must be tokens, not text the runtime may read as words
            throw new FailureException(Failure.InvalidRequest.of("suffix", "the model '" + model.id() + "' cannot"
                    + " fill in the middle: the " + runtime.name() + " tokenizes the prompt itself and places no"
                    + " fill-in-the-middle tokens (a GGUF model whose vocabulary has them can)"));
        }
        if (!rendersItself && PromptFormat.of(model).isEmpty()) {
            notes.add(new PreparedChat.Header(HEADER, "templated: the model's runtime keeps the chat template it"
                    + " was converted with, and its family's is not known to put back after a raw prompt"));
            return request.templated();
        }
        return request;
    }
}
