package io.rkllm.server.pipeline;

import io.rkllm.server.engine.contract.cache.Trim;
import io.rkllm.server.engine.contract.Sampling;
import io.rkllm.server.models.ModelDescriptor;
import io.rkllm.server.pipeline.output.ScannerOptions;
import io.rkllm.server.pipeline.request.ChatRequest;
import io.rkllm.server.pipeline.tasks.TaskKind;
import java.util.List;
import java.util.Optional;

/**
 * A request that passed validation, ready to queue: the model, the conversation, and every
 * decision already taken (thinking, token limit, sampling, output parsing).
 *
 * @param thinking whether the request runs with thinking
 * @param sampling this request's sampling when the runtime takes it per run (1.3)
 * @param promptEstimate estimated prompt tokens of a full resend of the (trimmed) conversation
 * @param trim the history messages left out so that the conversation fits (the planner keeps to it)
 * @param reserveTokens room kept for the answer when deciding what fits
 * @param task the Open WebUI background task this request is, if any
 * @param contract what the answer must be (JSON, a tool call) beyond free text, if anything
 * @param notes response headers that tell the client what was done differently than asked
 * @param vision the pictures the model sees (a vision model), ready for the run
 */
public record PreparedChat(ChatRequest request, ModelDescriptor model, Optional<PromptFormat> format,
                           Conversation conversation, boolean thinking, int maxTokens,
                           Optional<Sampling> sampling, ScannerOptions scanner, int promptEstimate, Trim trim,
                           int reserveTokens, Optional<TaskKind> task, Optional<AnswerContract> contract,
                           List<Header> notes, VisionInput vision) {

    /** A chat without pictures. */
    public PreparedChat(ChatRequest request, ModelDescriptor model, Optional<PromptFormat> format,
                        Conversation conversation, boolean thinking, int maxTokens,
                        Optional<Sampling> sampling, ScannerOptions scanner, int promptEstimate, Trim trim,
                        int reserveTokens, Optional<TaskKind> task, Optional<AnswerContract> contract,
                        List<Header> notes) {
        this(request, model, format, conversation, thinking, maxTokens, sampling, scanner,
                promptEstimate, trim, reserveTokens, task, contract, notes, VisionInput.NONE);
    }

    /** Says that the answer's token limit is below the client's, cut to what the context holds after the prompt. */
    public static final String BUDGET_HEADER = "X-RKLLM-Max-Tokens";

    /**
     * Whether the answer's limit is below the one the client asked for because the context holds no more after the
     * prompt: a {@code length} finish then means the context is full, not the client's limit reached.
     */
    public boolean answerBudgetCut() {
        return notes.stream().anyMatch(h -> h.name().equals(BUDGET_HEADER));
    }

    /** How many history messages the model does not see. */
    public int droppedMessages() {
        return trim.count();
    }

    /** A response header carrying a note. */
    public record Header(String name, String value) {
    }
}
