package io.rkllm.server.models;

import java.util.Locale;
import java.util.Objects;
import java.util.Optional;

/**
 * The model's own chat template, where the server found it, and the dialect {@code model.yaml} names for it: what
 * the pipeline chooses the model's dialect from (the named one, else the template's, else the family's).
 *
 * @param jinja the Jinja source: a {@code chat_template.jinja} beside the model file (in its own folder, as Hugging
 *              Face repositories ship it), else the one a GGUF file carries
 * @param origin where it came from, for messages: {@value #BESIDE}, {@value #HEADER} or {@value #NONE}
 * @param dialect the dialect {@code model.yaml}'s {@code dialect} key names
 */
public record TemplateSource(Optional<String> jinja, String origin, Optional<String> dialect) {
    /** The file name Hugging Face repositories give a model's chat template. */
    public static final String FILE_NAME = "chat_template.jinja";
    public static final String BESIDE = FILE_NAME + " beside the model";
    public static final String HEADER = "the model file";
    public static final String NONE = "none";

    public TemplateSource {
        Objects.requireNonNull(jinja, "jinja");
        Objects.requireNonNull(origin, "origin");
        Objects.requireNonNull(dialect, "dialect");
    }

    /** No template, no dialect named. */
    public static final TemplateSource NOTHING = new TemplateSource(Optional.empty(), NONE, Optional.empty());

    /**
     * The template takes tools: it renders a {@code tools} list (transformers passes it as {@code tools}). One that
     * writes only earlier calls (DeepSeek R1's distills) would give the model tools it never sees: refused, unless
     * {@code model.yaml} says otherwise.
     */
    public boolean rendersTools() {
        return jinja.filter(t -> t.contains("tools")).isPresent();
    }

    /** The template writes reasoning: a family's thinking markers, or a thinking switch, occur in it. */
    public boolean writesReasoning() {
        if (jinja.isEmpty()) {
            return false;
        }
        String t = jinja.get().toLowerCase(Locale.ROOT);
        return t.contains("<think>") || t.contains("[think]") || t.contains("<seed:think>")
                || t.contains("<|start_thinking|>") || t.contains("<|channel|>") || t.contains("<|channel>thought")
                || t.contains("enable_thinking") || t.contains("reasoning_content");
    }

    /** The same with a dialect named. */
    public TemplateSource withDialect(Optional<String> name) {
        return new TemplateSource(jinja, origin, name);
    }
}
