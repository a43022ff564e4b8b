package io.rkllm.server.backend.llama;

import io.rkllm.server.backend.llama.jinja.JinjaChatTemplate;
import io.rkllm.server.engine.contract.ChatPrompt;
import io.rkllm.server.engine.contract.PromptTemplate;
import java.util.Optional;

/**
 * The text a GGUF model reads for a prompt: the conversation rendered by the model's own chat template (its GGUF's
 * Jinja template, {@link JinjaChatTemplate}) when it renders, else turn by turn in the family template the pipeline
 * chose ({@link FamilyTurns}), else the pipeline's text alone (a model of no family the server knows).
 */
final class PromptText {
    private final Optional<JinjaChatTemplate> jinja;
    private final FamilyTurns family;

    /** @param endOfTurn the text of the token the model ends an answer with, for the family template */
    PromptText(Optional<JinjaChatTemplate> jinja, String endOfTurn) {
        this.jinja = jinja;
        this.family = new FamilyTurns(endOfTurn);
    }

    /** Whether prompts go through the model's own template. */
    boolean ownTemplate() {
        return jinja.isPresent();
    }

    String render(ChatPrompt prompt) {
        if (prompt.task().isPresent()) {
            String text = prompt.task().get().text();
            if (jinja.isPresent()) {
                return jinja.get().render(ChatPrompt.Message.of("user", text), false);
            }
            return prompt.setup().template().map(t -> wrap(t, text)).orElse(text);
        }
        if (jinja.isPresent() && !prompt.messages().isEmpty()) {
            return jinja.get().render(prompt);
        }
        if (prompt.setup().template().isPresent() && !prompt.messages().isEmpty()) {
            ChatPrompt.Setup setup = prompt.setup();
            return family.render(setup.template().get(), setup.systemInText() ? setup.systemPrompt() : "",
                    prompt.messages());
        }
        String whole = prompt.texts().whole().text();
        return prompt.setup().template().map(t -> wrap(t, whole)).orElse(whole);
    }

    private static String wrap(PromptTemplate template, String text) {
        return template.systemPrompt() + template.promptPrefix() + text + template.promptPostfix();
    }
}
