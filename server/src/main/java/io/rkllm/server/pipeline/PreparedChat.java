package io.rkllm.server.pipeline;

import io.rkllm.server.engine.contract.cache.Trim;
import io.rkllm.server.engine.contract.ReasoningBudget;
import io.rkllm.server.engine.contract.Sampling;
import io.rkllm.server.models.ModelDescriptor;
import io.rkllm.server.pipeline.output.ScannerOptions;
import io.rkllm.server.pipeline.request.ChatRequest;
import io.rkllm.server.pipeline.tasks.TaskKind;
import java.util.List;
import java.util.Optional;

/**
 * A request that passed validation, ready to queue: the model, what it will see, and every decision already taken
 * about its answer (thinking, token limit, sampling, output parsing).
 *
 * @param input what the model will see
 * @param plan how it answers
 * @param task the Open WebUI background task this request is, if any
 * @param notes response headers that tell the client what was done differently than asked
 */
public record PreparedChat(ChatRequest request, ModelDescriptor model, Input input, Plan plan,
                           Optional<TaskKind> task, List<Header> notes) {

    /**
     * What the model will see.
     *
     * @param format the family's prompt format, when the pipeline renders the prompt
     * @param promptEstimate estimated prompt tokens of a full resend of the (trimmed) conversation
     * @param trim the history messages left out so that the conversation fits (the planner keeps to it)
     * @param vision the pictures the model sees (a vision model), ready for the run
     */
    public record Input(Optional<PromptFormat> format, Conversation conversation, int promptEstimate, Trim trim,
                        VisionInput vision) {
    }

    /**
     * How it answers.
     *
     * @param thinking whether the request runs with thinking
     * @param reserveTokens room kept for the answer when deciding what fits
     * @param sampling this request's sampling when the runtime takes it per run (1.3)
     * @param contract what the answer must be (JSON, a tool call) beyond free text, if anything
     * @param reasoningBudget how far the reasoning may go, for an engine that can end it
     */
    public record Plan(boolean thinking, int maxTokens, int reserveTokens, Optional<Sampling> sampling,
                       ScannerOptions scanner, Optional<AnswerContract> contract,
                       Optional<ReasoningBudget> reasoningBudget) {
    }

    public Optional<PromptFormat> format() {
        return input.format();
    }

    public Conversation conversation() {
        return input.conversation();
    }

    public int promptEstimate() {
        return input.promptEstimate();
    }

    public Trim trim() {
        return input.trim();
    }

    public VisionInput vision() {
        return input.vision();
    }

    public boolean thinking() {
        return plan.thinking();
    }

    public int maxTokens() {
        return plan.maxTokens();
    }

    public int reserveTokens() {
        return plan.reserveTokens();
    }

    public Optional<Sampling> sampling() {
        return plan.sampling();
    }

    public ScannerOptions scanner() {
        return plan.scanner();
    }

    public Optional<AnswerContract> contract() {
        return plan.contract();
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
        return trim().count();
    }

    /** A response header carrying a note. */
    public record Header(String name, String value) {
    }
}
