package io.rkllm.server.pipeline.output.dialect;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The dialect each real template gives away (the templates of resources/chat-templates, as the models' GGUF files
 * carry them), and the tell-tale lines of the families whose templates are not kept here (their licences), as their
 * templates write them.
 */
class DialectDetectionTest {

    private static String template(String file) throws IOException {
        try (InputStream in = DialectDetectionTest.class.getResourceAsStream("/chat-templates/" + file)) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }

    @ParameterizedTest
    @CsvSource({
            "Qwen-Qwen3-0.6B.jinja, hermes", "Qwen-QwQ-32B.jinja, hermes", "Qwen-Qwen2.5-7B-Instruct.jinja, hermes",
            "deepseek-ai-DeepSeek-R1-Distill-Qwen-32B.jinja, deepseek", "deepseek-ai-DeepSeek-V3.1.jinja, deepseek",
            "Mistral-Small-3.2-24B-Instruct-2506.jinja, mistral", "mistralai-Mistral-Nemo-Instruct-2407.jinja, mistral-nemo",
            "unsloth-mistral-Devstral-Small-2507.jinja, mistral", "ibm-granite-granite-3.3-2B-Instruct.jinja, granite",
            "openai-gpt-oss-120b.jinja, gpt-oss", "ByteDance-Seed-OSS.jinja, seed-oss"})
    void realTemplates(String file, String dialect) throws IOException {
        assertThat(Dialects.ofTemplate(template(file)).map(Dialect::name)).contains(dialect);
    }

    @Test
    void aTemplateWithoutMarkersShowsNone() throws IOException {
        assertThat(Dialects.ofTemplate(template("microsoft-Phi-3.5-mini-instruct.jinja"))).isEmpty();
    }

    @Test
    void theTellTaleLinesOfOtherFamilies() {
        Map<String, String> lines = Map.ofEntries(
                Map.entry("{{- '<|start_header_id|>ipython<|end_header_id|>' }}{{- '\"parameters\": ' }}", "llama3"),
                Map.entry("{{- '<tool_call>\\n<function=' + tool_call.name + '>\\n' }}{{- '<parameter=' }}",
                        "qwen3-coder"),
                Map.entry("{{- '<tool_call>' + tc.name }}{% for k, v in args.items() %}<arg_key>{{ k }}</arg_key>"
                        + "<arg_value>{{ v }}</arg_value>", "glm"),
                Map.entry("{{- '<|tool_call>call:' + function['name'] + '{' }}", "gemma4"),
                Map.entry("<|tool_calls_section_begin|><|tool_call_begin|>functions.", "kimi-k2"),
                Map.entry("List of tools: <|tool_list_start|>[{{ tools }}]<|tool_list_end|>", "lfm2"),
                Map.entry("{{- 'List of tools: [' }}", "lfm2"),
                Map.entry("<minimax:tool_call>\\n<invoke name=", "minimax-m2"),
                Map.entry("{% set dsml_token = '｜DSML｜' %}{{ '<' + dsml_token + 'function_calls>' }}", "deepseek-v3.2"),
                Map.entry("<TOOLCALL>[{{ calls }}]</TOOLCALL>", "nemotron-v2"),
                Map.entry("<|START_THINKING|>{{ t }}<|END_THINKING|><|START_ACTION|>[", "command-r7b"));
        lines.forEach((line, dialect) -> assertThat(Dialects.ofTemplate(line).map(Dialect::name)).as(line)
                .isEqualTo(Optional.of(dialect)));
    }
}
