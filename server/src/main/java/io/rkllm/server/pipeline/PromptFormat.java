package io.rkllm.server.pipeline;

import io.rkllm.server.engine.contract.PromptTemplate;
import io.rkllm.server.models.ModelDescriptor;
import java.util.Locale;
import java.util.Optional;

/**
 * How a model family frames a conversation (the template a backend wraps each prompt in): the system block
 * (with a {@code {system}} placeholder), the text before and after each user prompt, what closes
 * an empty think block when thinking is off (Qwen3's own template does exactly this), and what opens the
 * reasoning when it is on (Qwen3.5's).
 *
 * <p>Families the server does not know get no format: their runtime keeps the template captured at
 * conversion, and a system prompt is sent as text at the start of the prompt.
 */
public record PromptFormat(String systemBlock, String prefix, String postfix, String thinkingOffSuffix,
                           String thinkingOnSuffix) {
    public static final String SYSTEM_PLACEHOLDER = "{system}";

    /** A family whose template opens no reasoning. */
    public PromptFormat(String systemBlock, String prefix, String postfix, String thinkingOffSuffix) {
        this(systemBlock, prefix, postfix, thinkingOffSuffix, "");
    }

    private static final PromptFormat CHATML = new PromptFormat(
            "<|im_start|>system\n{system}<|im_end|>\n", "<|im_start|>user\n", "<|im_end|>\n<|im_start|>assistant\n",
            "");
    private static final PromptFormat QWEN3 = new PromptFormat(CHATML.systemBlock, CHATML.prefix, CHATML.postfix,
            "<think>\n\n</think>\n\n");
    /** Qwen3.5: the generation prompt opens the reasoning when thinking is on, closes an empty one when off. */
    private static final PromptFormat QWEN35 = new PromptFormat(CHATML.systemBlock, CHATML.prefix, CHATML.postfix,
            "<think>\n\n</think>\n\n", "<think>\n");
    /**
     * gpt-oss's harmony format, its system message as its template writes it for a medium effort; the request's
     * system prompt is the developer's instructions. The answer starts after the assistant's start of message.
     */
    private static final PromptFormat GPT_OSS = new PromptFormat("<|start|>system<|message|>You are ChatGPT, a large"
            + " language model trained by OpenAI.\nKnowledge cutoff: 2024-06\n\nReasoning: medium\n\n# Valid channels:"
            + " analysis, commentary, final. Channel must be included for every message.<|end|><|start|>developer"
            + "<|message|># Instructions\n\n{system}<|end|>", "<|start|>user<|message|>", "<|end|><|start|>assistant", "");
    private static final PromptFormat LLAMA3 = new PromptFormat(
            "<|begin_of_text|><|start_header_id|>system<|end_header_id|>\n\n{system}<|eot_id|>",
            "<|start_header_id|>user<|end_header_id|>\n\n",
            "<|eot_id|><|start_header_id|>assistant<|end_header_id|>\n\n", "");
    private static final PromptFormat PHI3 = new PromptFormat("<|system|>\n{system}<|end|>\n", "<|user|>\n",
            "<|end|>\n<|assistant|>\n", "");
    private static final PromptFormat DEEPSEEK_R1 = new PromptFormat("<｜begin▁of▁sentence｜>{system}",
            "<｜User｜>", "<｜Assistant｜>", "<think>\n\n</think>\n\n");

    /** The format for a model: the sidecar's template, else its family's, else none. */
    public static Optional<PromptFormat> of(ModelDescriptor model) {
        if (model.chatTemplate().isPresent()) {
            var t = model.chatTemplate().get();
            boolean thinks = model.capabilities().thinking();
            return Optional.of(new PromptFormat(t.systemPrompt(), t.promptPrefix(), t.promptPostfix(),
                    thinks && model.family().startsWith("qwen3") ? QWEN3.thinkingOffSuffix : ""));
        }
        String family = model.family().toLowerCase(Locale.ROOT);
        if (family.equals("gpt-oss")) {
            return Optional.of(GPT_OSS);
        }
        if (family.startsWith("qwen3.5")) {
            return Optional.of(QWEN35);
        }
        if (family.startsWith("qwen3") && !family.startsWith("qwen3-vl") && !family.startsWith("qwen3-coder")) {
            return Optional.of(QWEN3);
        }
        // Qwen3-VL instruct models use plain ChatML: no think block to close
        if (family.startsWith("qwen") || family.startsWith("minicpm") || family.startsWith("internlm")) {
            return Optional.of(CHATML);
        }
        if (family.startsWith("llama3") || family.equals("llama")) {
            return Optional.of(LLAMA3);
        }
        if (family.startsWith("phi")) {
            return Optional.of(PHI3);
        }
        if (family.startsWith("deepseek")) {
            return Optional.of(DEEPSEEK_R1);
        }
        return Optional.empty();
    }

    /** Whether the system block takes the request's system prompt. */
    public boolean acceptsSystemPrompt() {
        return systemBlock.contains(SYSTEM_PLACEHOLDER);
    }

    /** The template for a system prompt and thinking mode. */
    public PromptTemplate template(String systemPrompt, boolean thinkingOff) {
        String system = systemPrompt.isEmpty() && acceptsSystemPrompt() ? ""
                : systemBlock.replace(SYSTEM_PLACEHOLDER, systemPrompt);
        return new PromptTemplate(system, prefix, postfix + (thinkingOff ? thinkingOffSuffix : thinkingOnSuffix));
    }
}
