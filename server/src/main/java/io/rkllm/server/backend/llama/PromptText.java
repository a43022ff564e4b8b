package io.rkllm.server.backend.llama;

import io.rkllm.llama.Vocabulary;
import io.rkllm.server.engine.contract.ChatPrompt;
import io.rkllm.server.engine.contract.PromptTemplate;
import io.rkllm.server.template.JinjaChatTemplate;
import io.rkllm.server.template.TemplateMessage;
import io.rkllm.server.template.TemplateSwitches;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.IntFunction;

/**
 * The text a GGUF model reads for a prompt: the conversation rendered by the model's own chat template (its GGUF's
 * Jinja template, {@link JinjaChatTemplate}) when it renders, else turn by turn in the family template the pipeline
 * chose ({@link FamilyTurns}), else in ChatML, as llama-server writes a model with no template of its own.
 */
final class PromptText {
    /** ChatML: what llama-server falls back to for a model without a template, the family of most open models. */
    private static final String CHATML_SYSTEM = "<|im_start|>system\n";
    private static final String CHATML_USER = "<|im_start|>user\n";
    private static final String CHATML_ASSISTANT = "<|im_end|>\n<|im_start|>assistant\n";
    /** What llama-server writes before another file's chunk for a model without a file separator. */
    static final String SNIPPET = "\n\n--- snippet ---\n\n";

    private final Optional<JinjaChatTemplate> jinja;
    private final FamilyTurns family;
    private final Optional<FimTexts> fim;

    /**
     * @param endOfTurn the text of the token the model ends an answer with, for the family template
     * @param fim the texts of the model's fill-in-the-middle tokens, when its vocabulary has them
     */
    PromptText(Optional<JinjaChatTemplate> jinja, String endOfTurn, Optional<FimTexts> fim) {
        this.jinja = jinja;
        this.family = new FamilyTurns(endOfTurn);
        this.fim = fim;
    }

    /** A model without fill-in-the-middle tokens. */
    PromptText(Optional<JinjaChatTemplate> jinja, String endOfTurn) {
        this(jinja, endOfTurn, Optional.empty());
    }

    /**
     * The texts of a model's fill-in-the-middle tokens, which the tokenizer reads back as those tokens.
     *
     * @param repository for a model trained on whole repositories, llama-server's repository header
     *                   ({@code <|repo_name|>myproject\n}), else ""
     * @param fileSeparator the text of the token before each file's name ({@code <|file_sep|>}), else ""
     */
    record FimTexts(String repository, String fileSeparator, String prefix, String suffix, String middle) {
        /** The texts of {@code tokens}, each token's piece given by {@code piece}. */
        static FimTexts of(Vocabulary.FimTokens tokens, IntFunction<String> piece) {
            return new FimTexts(tokens.repository() < 0 ? "" : piece.apply(tokens.repository()) + "myproject\n",
                    tokens.fileSeparator() < 0 ? "" : piece.apply(tokens.fileSeparator()), piece.apply(tokens.prefix()),
                    piece.apply(tokens.suffix()), piece.apply(tokens.middle()));
        }
    }

    /** A suffix for a model without fill-in-the-middle tokens (an argument the model cannot take). */
    static final class NoFillInTheMiddle extends IllegalArgumentException {
        NoFillInTheMiddle(String message) {
            super(message);
        }
    }

    /** Whether prompts go through the model's own template. */
    boolean ownTemplate() {
        return jinja.isPresent();
    }

    /** @throws NoFillInTheMiddle a raw prompt's suffix, for a model without the tokens to place it with */
    String render(ChatPrompt prompt) {
        ChatPrompt.Setup setup = prompt.setup();
        if (setup.raw().isPresent()) {
            return raw(prompt.model(), setup.raw().get());
        }
        if (prompt.task().isPresent()) {
            String text = prompt.task().get().text();
            if (jinja.isPresent()) {
                return jinja.get().render(TemplateMessage.of("user", text), false);
            }
            PromptTemplate template = template(setup);
            return template.systemPrompt() + template.promptPrefix() + text + template.promptPostfix();
        }
        if (jinja.isPresent()) {
            return jinja.get().render(messages(prompt), setup.tools(), new TemplateSwitches(
                    prompt.settings().thinking(), prompt.settings().effort(), prompt.settings().templateArguments()));
        }
        boolean systemBeforeFirstTurn = setup.template().isPresent() && setup.systemInText();
        return family.render(template(setup), systemBeforeFirstTurn ? setup.systemPrompt() : "", prompt.messages());
    }

    /**
     * A raw prompt as it is; with a suffix in llama-server's {@code /infill} order (prefix, suffix, middle: the order
     * Qwen2.5-Coder, CodeLlama and StarCoder were trained on), the answer being the middle, after the other files'
     * chunks as llama-server writes them: each after the file separator and its name for a model trained on
     * repositories, else after a snippet line.
     */
    private String raw(String model, ChatPrompt.Raw raw) {
        if (raw.suffix().isEmpty()) {
            return raw.prefix();
        }
        FimTexts tokens = fim.orElseThrow(() -> new NoFillInTheMiddle("the model '" + model + "' cannot fill in"
                + " the middle: its vocabulary has no fill-in-the-middle tokens (a code model's, such as"
                + " Qwen2.5-Coder's <|fim_prefix|>, <|fim_suffix|> and <|fim_middle|>)"));
        StringBuilder text = new StringBuilder(tokens.repository());
        boolean files = !tokens.fileSeparator().isEmpty();
        for (ChatPrompt.File file : raw.extra()) {
            text.append(files ? tokens.fileSeparator() + file.name() + "\n" : SNIPPET).append(file.text());
        }
        if (files) {
            text.append(tokens.fileSeparator()).append("filename\n");
        }
        return text.append(tokens.prefix()).append(raw.prefix()).append(tokens.suffix()).append(raw.suffix().get())
                .append(tokens.middle()).toString();
    }

    /** The family's template the pipeline chose, else ChatML with the system prompt in its system block. */
    private static PromptTemplate template(ChatPrompt.Setup setup) {
        return setup.template().orElseGet(() -> new PromptTemplate(setup.systemPrompt().isEmpty() ? ""
                : CHATML_SYSTEM + setup.systemPrompt() + "<|im_end|>\n", CHATML_USER, CHATML_ASSISTANT));
    }

    /** The conversation as the template reads it: the system prompt first, then the messages. */
    static List<TemplateMessage> messages(ChatPrompt prompt) {
        List<TemplateMessage> messages = new ArrayList<>();
        if (!prompt.setup().systemPrompt().isEmpty()) {
            messages.add(TemplateMessage.of("system", prompt.setup().systemPrompt()));
        }
        for (ChatPrompt.Message m : prompt.messages()) {
            messages.add(new TemplateMessage(m.role(), m.content(), m.toolCalls().stream()
                    .map(c -> new TemplateMessage.Call(c.id(), c.name(), c.argumentsJson())).toList(),
                    m.toolCallId(), m.reasoning()));
        }
        return messages;
    }
}
