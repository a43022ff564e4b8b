package io.rkllm.server.pipeline;

import static org.assertj.core.api.Assertions.assertThat;

import io.rkllm.server.models.Capabilities;
import io.rkllm.server.models.ModelDescriptor;
import io.rkllm.server.models.ModelFacts;
import io.rkllm.server.models.SamplingDefaults;
import io.rkllm.server.models.TemplateSource;
import io.rkllm.server.template.TemplateSwitches;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import org.junit.jupiter.api.Test;

/** Which dialect a model is read in, and whether its prompt leaves the answer inside its reasoning. */
class ModelDialectsTest {
    /** Qwen3.5's way: the generation prompt opens the reasoning when thinking is on, DeepSeek V3.1's own switch. */
    private static final String OPENS = "{% for m in messages %}<|im_start|>{{ m.role }}\n{{ m.content }}<|im_end|>\n"
            + "{% endfor %}<|im_start|>assistant\n{% if enable_thinking or thinking %}<think>\n{% else %}<think>\n\n"
            + "</think>\n\n{% endif %}";

    private record Facts() implements ModelFacts {
        @Override
        public String engine() {
            return "test";
        }

        @Override
        public String format() {
            return "test";
        }
    }

    private static ModelDescriptor model(String family, TemplateSource template, boolean startsOpen) {
        return new ModelDescriptor("m-" + family, "m", List.of(), family,
                new ModelDescriptor.Stored(Path.of("/models/m/m.gguf"), 1, Instant.EPOCH, OptionalInt.empty()),
                new ModelDescriptor.Context(4096, ModelDescriptor.SOURCE_DEFAULT),
                new ModelDescriptor.Chat(new Capabilities(true, true), SamplingDefaults.none(), SamplingDefaults.none(),
                        Optional.empty(), Optional.empty(), startsOpen, template),
                Optional.empty(), Optional.empty(), new Facts());
    }

    private static TemplateSource jinja(String source) {
        return new TemplateSource(Optional.of(source), TemplateSource.HEADER, Optional.empty());
    }

    private final ModelDialects dialects = new ModelDialects();

    @Test
    void theSidecarsNameThenTheTemplateThenTheFamily() {
        assertThat(dialects.of(model("llama", TemplateSource.NOTHING.withDialect(Optional.of("glm")), false)).name())
                .isEqualTo("glm");
        assertThat(dialects.of(model("llama", jinja("<|channel|>"), false)).name()).isEqualTo("gpt-oss");
        assertThat(dialects.of(model("gpt-oss", TemplateSource.NOTHING, false)).name()).isEqualTo("gpt-oss");
        // an unknown name in the sidecar: the template decides (and a warning says so)
        assertThat(dialects.of(model("x", jinja("[TOOL_CALLS][ARGS]").withDialect(Optional.of("klingon")), false))
                .name()).isEqualTo("mistral");
    }

    @Test
    void aTemplateWithoutMarkersIsHermesWhateverTheFamily() {
        // the family's dialect is only for a model without a template of its own (an .rkllm file)
        assertThat(dialects.of(model("llama", jinja("{{ messages }}"), false)).name()).isEqualTo("hermes");
        assertThat(dialects.of(model("llama", TemplateSource.NOTHING, false)).name()).isEqualTo("llama3");
    }

    @Test
    void theTemplateSaysWhetherTheAnswerStartsInsideTheReasoning() {
        ModelDescriptor m = model("generic", jinja(OPENS), false);
        var hermes = dialects.of(m);
        assertThat(dialects.promptOpensReasoning(m, hermes, TemplateSwitches.thinking(true))).isTrue();
        assertThat(dialects.promptOpensReasoning(m, hermes, TemplateSwitches.thinking(false))).isFalse();
        // the client's own template argument switches it too (DeepSeek V3.1's `thinking`)
        assertThat(dialects.promptOpensReasoning(m, hermes, new TemplateSwitches(false, Optional.empty(),
                Map.of("thinking", true)))).isTrue();
        // without a template: the family's (or sidecar's) thinking_starts_open, when thinking is on
        ModelDescriptor r1 = model("deepseek-r1", TemplateSource.NOTHING, true);
        assertThat(dialects.promptOpensReasoning(r1, dialects.of(r1), TemplateSwitches.thinking(true))).isTrue();
        assertThat(dialects.promptOpensReasoning(r1, dialects.of(r1), TemplateSwitches.thinking(false))).isFalse();
    }
}
