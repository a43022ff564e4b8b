package io.rkllm.server.pipeline;

import io.rkllm.server.models.ModelDescriptor;
import io.rkllm.server.pipeline.output.dialect.Dialect;
import io.rkllm.server.pipeline.output.dialect.Dialects;
import io.rkllm.server.template.JinjaChatTemplate;
import io.rkllm.server.template.TemplateMessage;
import io.rkllm.server.template.TemplateSwitches;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Which dialect a model speaks, and whether its prompt leaves the answer inside its reasoning. The dialect: the one
 * its {@code model.yaml} names, else the one its own chat template writes (as llama.cpp chooses a parser), else its
 * family's (an {@code .rkllm} model without a template), else Hermes'. Whether the prompt opens reasoning: the model's
 * own template rendered once for a one-message chat with thinking on and once off (the answer starts where the prompt
 * ends); the family's {@code thinking_starts_open} for a model without one.
 */
public final class ModelDialects {
    private static final Logger LOG = LoggerFactory.getLogger(ModelDialects.class);
    /** Families whose profile names no template, and the dialect they write. */
    private static final Map<String, String> FAMILIES = Map.ofEntries(
            Map.entry("gpt-oss", "gpt-oss"), Map.entry("deepseek-r1", "deepseek"), Map.entry("llama", "llama3"),
            Map.entry("qwen3.5", "qwen3-coder"), Map.entry("qwen3-coder", "qwen3-coder"), Map.entry("glm", "glm"),
            Map.entry("chatglm", "glm"), Map.entry("gemma", "gemma4"), Map.entry("mistral", "mistral"),
            Map.entry("granite", "granite"), Map.entry("lfm2", "lfm2"), Map.entry("seed-oss", "seed-oss"),
            Map.entry("minimax", "minimax-m2"), Map.entry("kimi", "kimi-k2"));

    private static final int MAX_PROBES = 256;
    private final Map<String, Boolean> opens = new ConcurrentHashMap<>();
    private final Set<String> warned = ConcurrentHashMap.newKeySet();

    /** The model's dialect. */
    public Dialect of(ModelDescriptor model) {
        Optional<String> named = model.template().dialect();
        if (named.isPresent()) {
            Optional<Dialect> dialect = Dialects.named(named.get());
            if (dialect.isPresent()) {
                return dialect.get();
            }
            if (warned.add(model.id() + "\0" + named.get())) {
                LOG.warn("model {}: its model.yaml names the dialect '{}', which the server does not know (it knows {});"
                        + " its chat template decides", model.id(), named.get(), String.join(", ", Dialects.names()));
            }
        }
        if (model.template().jinja().isPresent()) {
            // the template is what the model was tuned with: one that shows no dialect's markers is Hermes'
            return model.template().jinja().flatMap(Dialects::ofTemplate).orElse(Dialects.HERMES);
        }
        return Optional.ofNullable(FAMILIES.get(model.family().toLowerCase(Locale.ROOT))).flatMap(Dialects::named)
                .orElse(Dialects.HERMES);
    }

    /**
     * Whether the answer starts inside reasoning: the model's template's generation prompt ends in its opening marker
     * (with thinking as the request has it); without a template that renders, what the family says.
     */
    boolean promptOpensReasoning(ModelDescriptor model, Dialect dialect, TemplateSwitches switches) {
        boolean thinking = switches.thinking();
        if (model.template().jinja().isEmpty()) {
            return thinking && model.thinkingStartsOpen();
        }
        // the client's template arguments may switch the reasoning too (DeepSeek V3.1's `thinking`)
        String key = model.id() + "\0" + model.modified() + "\0" + dialect.name() + "\0" + switches;
        if (opens.size() > MAX_PROBES) {
            opens.clear(); // clients that send ever new arguments: the probes are redone, not kept for ever
        }
        return opens.computeIfAbsent(key, k -> rendersOpen(model, dialect, switches));
    }

    private static boolean rendersOpen(ModelDescriptor model, Dialect dialect, TemplateSwitches switches) {
        boolean thinking = switches.thinking();
        List<String> problems = new ArrayList<>();
        Optional<JinjaChatTemplate> template = JinjaChatTemplate.tryOf(model.template().jinja().get(), "", "", false,
                problems);
        if (template.isEmpty()) {
            return thinking && model.thinkingStartsOpen();
        }
        try {
            String prompt = template.get().render(List.of(TemplateMessage.of("user", "Hi")), Optional.empty(),
                    switches);
            return dialect.opensReasoning(prompt);
        } catch (RuntimeException e) {
            return thinking && model.thinkingStartsOpen();
        }
    }
}
