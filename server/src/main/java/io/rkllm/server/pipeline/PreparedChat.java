package io.rkllm.server.pipeline;

import io.rkllm.ffm.SamplingParams;
import io.rkllm.server.engine.ModelSpec;
import io.rkllm.server.models.ModelDescriptor;
import io.rkllm.server.pipeline.output.ScannerOptions;
import java.util.List;
import java.util.Optional;

/**
 * A request that passed validation, ready to queue: the model, the conversation, and every
 * decision already taken (thinking, token limit, sampling, output parsing).
 *
 * @param promptEstimate estimated prompt tokens of a full resend, for the context check and usage
 * @param notes response headers that tell the client what was done differently than asked
 */
public record PreparedChat(ChatRequest request, ModelDescriptor model, ModelSpec spec,
                           Optional<PromptFormat> format, Conversation conversation, boolean thinking,
                           int maxTokens, Optional<SamplingParams> sampling, ScannerOptions scanner,
                           int promptEstimate, List<Header> notes) {

    /** A response header carrying a note. */
    public record Header(String name, String value) {
    }
}
