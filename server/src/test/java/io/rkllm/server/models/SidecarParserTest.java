package io.rkllm.server.models;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

class SidecarParserTest {

    @TempDir
    Path dir;

    private final SidecarParser parser = new SidecarParser();

    private SidecarParser.Parsed parse(String yaml) throws IOException {
        Path file = dir.resolve("model.yaml");
        Files.writeString(file, yaml);
        return parser.parse(file);
    }

    private static List<String> keys(List<Problem> problems) {
        return problems.stream().map(p -> p.key().orElse("")).toList();
    }

    @Test
    void readsEveryKey() throws IOException {
        SidecarParser.Parsed parsed = parse("""
                name: Qwen3 1.7B (NPU)
                family: Qwen3
                context_length: 8192
                capabilities:
                  thinking: true
                  tools: false
                thinking_starts_open: false
                temperature: 0.6
                top_p: 0.9
                top_k: 30
                repeat_penalty: 1.05
                frequency_penalty: 0.1
                presence_penalty: 1.0
                max_tokens: 1024
                thinking_sampling:
                  temperature: 0.5
                  top_p: 0.95
                chat_template:
                  system_prompt: "<|im_start|>system\\nYou are helpful.<|im_end|>\\n"
                  prompt_prefix: "<|im_start|>user\\n"
                  prompt_postfix: "<|im_end|>\\n<|im_start|>assistant\\n"
                default_system_prompt: You are a concise assistant.
                aliases: [qwen-small, Fast Qwen]
                memory_mb: 2300
                """);
        assertThat(parsed.errors()).isEmpty();
        Sidecar s = parsed.sidecar().orElseThrow();
        assertThat(s.memoryMb()).hasValue(2300);
        assertThat(s.name()).contains("Qwen3 1.7B (NPU)");
        assertThat(s.family()).contains("qwen3");
        assertThat(s.contextLength()).hasValue(8192);
        assertThat(s.thinking()).contains(true);
        assertThat(s.tools()).contains(false);
        assertThat(s.thinkingStartsOpen()).contains(false);
        assertThat(s.sampling().temperature()).hasValue(0.6);
        assertThat(s.sampling().topP()).hasValue(0.9);
        assertThat(s.sampling().topK()).hasValue(30);
        assertThat(s.sampling().repeatPenalty()).hasValue(1.05);
        assertThat(s.sampling().frequencyPenalty()).hasValue(0.1);
        assertThat(s.sampling().presencePenalty()).hasValue(1.0);
        assertThat(s.sampling().maxTokens()).hasValue(1024);
        assertThat(s.thinkingSampling().temperature()).hasValue(0.5);
        assertThat(s.thinkingSampling().topP()).hasValue(0.95);
        assertThat(s.thinkingSampling().topK()).isEmpty();
        assertThat(s.chatTemplate()).contains(new ChatTemplate("<|im_start|>system\nYou are helpful.<|im_end|>\n",
                "<|im_start|>user\n", "<|im_end|>\n<|im_start|>assistant\n"));
        assertThat(s.defaultSystemPrompt()).contains("You are a concise assistant.");
        assertThat(s.aliases()).containsExactly("qwen-small", "fast-qwen");
        // "Fast Qwen" changed beyond case: a warning says what it became.
        assertThat(parsed.warnings()).singleElement().satisfies(w -> {
            assertThat(w.key()).contains("aliases[1]");
            assertThat(w.message()).contains("fast-qwen");
        });
    }

    @Test
    void theFullExampleInTheDocsIsValid() throws IOException {
        Path doc = Path.of("..", "docs", "models.md");
        assumeTrue(Files.exists(doc), "docs/models.md not found from " + Path.of("").toAbsolutePath());
        String text = Files.readString(doc);
        int start = text.indexOf("# ~/models/Qwen3-1.7B-RK3588-w8a8/model.yaml");
        String yaml = text.substring(start, text.indexOf("```", start));

        SidecarParser.Parsed parsed = parse(yaml);

        assertThat(parsed.problems()).isEmpty();
        Sidecar s = parsed.sidecar().orElseThrow();
        assertThat(s.contextLength()).hasValue(8192);
        assertThat(s.chatTemplate().orElseThrow().promptPrefix()).isEqualTo("<|im_start|>user\n");
        assertThat(s.aliases()).containsExactly("qwen-small", "thinker");
        assertThat(s.thinkingSampling().presencePenalty()).hasValue(0.0);
    }

    @Test
    void emptyFileSetsNothing() throws IOException {
        SidecarParser.Parsed parsed = parse("");
        assertThat(parsed.problems()).isEmpty();
        assertThat(parsed.sidecar()).contains(Sidecar.none(dir.resolve("model.yaml")));
    }

    @Test
    void nullMeansNotSet() throws IOException {
        SidecarParser.Parsed parsed = parse("""
                temperature:
                context_length: ~
                capabilities:
                """);
        assertThat(parsed.problems()).isEmpty();
        Sidecar s = parsed.sidecar().orElseThrow();
        assertThat(s.sampling().isEmpty()).isTrue();
        assertThat(s.contextLength()).isEmpty();
        assertThat(s.thinking()).isEmpty();
    }

    @Test
    void unknownKeysWarnWithASuggestion() throws IOException {
        SidecarParser.Parsed parsed = parse("""
                tempreature: 0.5
                colour: blue
                capabilities: {thinking: true, vision: true}
                """);
        assertThat(parsed.errors()).isEmpty();
        assertThat(parsed.sidecar()).isPresent();
        assertThat(parsed.warnings()).extracting(Problem::toString).containsExactly(
                dir.resolve("model.yaml") + ": tempreature: unknown key, ignored; did you mean 'temperature'?",
                dir.resolve("model.yaml") + ": colour: unknown key, ignored",
                dir.resolve("model.yaml") + ": capabilities.vision: unknown key, ignored");
    }

    @Test
    void keysAreCaseInsensitiveAndAcceptDashes() throws IOException {
        SidecarParser.Parsed parsed = parse("""
                Top-P: 0.5
                CONTEXT_LENGTH: 2048
                """);
        assertThat(parsed.problems()).isEmpty();
        assertThat(parsed.sidecar().orElseThrow().sampling().topP()).hasValue(0.5);
        assertThat(parsed.sidecar().orElseThrow().contextLength()).hasValue(2048);
    }

    @Test
    void acceptsQuotedNumbersYesNoAndK() throws IOException {
        SidecarParser.Parsed parsed = parse("""
                temperature: "0.7"
                context_length: 8k
                max_tokens: 512.0
                capabilities: {thinking: "yes", tools: "off"}
                aliases: qwen-one
                """);
        assertThat(parsed.problems()).isEmpty();
        Sidecar s = parsed.sidecar().orElseThrow();
        assertThat(s.sampling().temperature()).hasValue(0.7);
        assertThat(s.contextLength()).hasValue(8192);
        assertThat(s.sampling().maxTokens()).hasValue(512);
        assertThat(s.thinking()).contains(true);
        assertThat(s.tools()).contains(false);
        assertThat(s.aliases()).containsExactly("qwen-one");
    }

    @Test
    void badValuesAreErrorsNamingFileAndKey() throws IOException {
        SidecarParser.Parsed parsed = parse("""
                context_length: big
                temperature: hot
                top_p: 1.5
                top_k: 2.5
                repeat_penalty: -1
                presence_penalty: 3
                max_tokens: 0
                capabilities: {thinking: maybe}
                thinking_starts_open: [true]
                chat_template: "<|im_start|>"
                aliases: {a: b}
                name: {first: x}
                thinking_sampling: 0.5
                """);
        assertThat(parsed.sidecar()).isEmpty();
        assertThat(keys(parsed.errors())).containsExactly("name", "context_length", "capabilities.thinking",
                "thinking_starts_open", "temperature", "top_p", "top_k", "repeat_penalty", "presence_penalty",
                "max_tokens", "thinking_sampling", "chat_template", "aliases");
        Path file = dir.resolve("model.yaml");
        assertThat(parsed.errors()).allSatisfy(e -> assertThat(e.path()).isEqualTo(file));
        assertThat(parsed.errors()).extracting(Problem::toString).contains(
                file + ": context_length: expected a whole number (or 4k, 8k, ...), got \"big\"",
                file + ": temperature: expected a number, got \"hot\"",
                file + ": top_p: must be between 0 and 1, got 1.5",
                file + ": capabilities.thinking: expected true or false, got \"maybe\"");
    }

    @Test
    void outOfRangeIntegersAreErrors() throws IOException {
        SidecarParser.Parsed parsed = parse("context_length: 99999999999\n");
        assertThat(parsed.errors()).singleElement().satisfies(e -> {
            assertThat(e.key()).contains("context_length");
            assertThat(e.message()).startsWith("must be between 1 and 1048576");
        });
    }

    @Test
    void nonFiniteNumbersAreErrors() throws IOException {
        SidecarParser.Parsed parsed = parse("temperature: 'NaN'\ntop_p: 'Infinity'\n");
        assertThat(keys(parsed.errors())).containsExactly("temperature", "top_p");
        // YAML's own .nan is refused by the YAML reader itself, still naming the file and line.
        assertThat(parse("temperature: .nan\n").errors()).singleElement()
                .satisfies(e -> assertThat(e.message()).startsWith("is not valid YAML (line 1"));
    }

    @Test
    void chatTemplatePartsDefaultToEmpty() throws IOException {
        SidecarParser.Parsed parsed = parse("chat_template: {prompt_prefix: 'U: ', prompt_postfix: \"\\nA: \"}\n");
        assertThat(parsed.sidecar().orElseThrow().chatTemplate()).contains(new ChatTemplate("", "U: ", "\nA: "));
    }

    @Test
    void emptyChatTemplateIsIgnoredWithAWarning() throws IOException {
        SidecarParser.Parsed parsed = parse("chat_template: {}\n");
        assertThat(parsed.sidecar().orElseThrow().chatTemplate()).isEmpty();
        assertThat(keys(parsed.warnings())).containsExactly("chat_template");
    }

    @Test
    void invalidYamlIsAnErrorWithItsLine() throws IOException {
        SidecarParser.Parsed parsed = parse("name: ok\ntemperature: [0.5\ntop_k: 3\n");
        assertThat(parsed.sidecar()).isEmpty();
        assertThat(parsed.errors()).singleElement().satisfies(e -> {
            assertThat(e.key()).isEmpty();
            assertThat(e.message()).startsWith("is not valid YAML (line ");
        });
    }

    @Test
    void aTopLevelListIsAnError() throws IOException {
        SidecarParser.Parsed parsed = parse("- name: x\n");
        assertThat(parsed.errors()).singleElement()
                .satisfies(e -> assertThat(e.message()).startsWith("expected a map of keys"));
    }

    @Test
    void duplicateKeysAreErrors() throws IOException {
        assertThat(parse("top_k: 1\ntop_k: 2\n").errors()).hasSize(1);
        assertThat(parse("top_k: 1\ntop-k: 2\n").errors()).singleElement()
                .satisfies(e -> assertThat(e.message()).isEqualTo("is set twice"));
    }

    @Test
    void hugeFilesAreNotRead() throws IOException {
        SidecarParser.Parsed parsed = parse("# " + "x".repeat((int) SidecarParser.MAX_BYTES) + "\n");
        assertThat(parsed.errors()).singleElement().satisfies(e -> assertThat(e.message()).contains("not read"));
    }

    @Test
    void readsLegacyModelConfigJson() throws IOException {
        Path json = dir.resolve("model_config.json");
        List<Problem> problems = new ArrayList<>();
        Files.writeString(json, "{\"context_length\": 8192, \"other\": true}");
        assertThat(parser.legacyContextLength(json, problems)).hasValue(8192);
        Files.writeString(json, "{\"context_length\": \"lots\"}");
        assertThat(parser.legacyContextLength(json, problems)).isEmpty();
        Files.writeString(json, "{not json");
        assertThat(parser.legacyContextLength(json, problems)).isEmpty();
        assertThat(problems).hasSize(2).allSatisfy(p -> {
            assertThat(p.isError()).isFalse();
            assertThat(p.message()).endsWith("(file ignored)");
        });
    }

    @Test
    void suggestsOnlyCloseUnambiguousKeys() {
        assertThat(SidecarFields.closest("top_pp", SidecarKeys.TOP_KEYS)).contains("top_p");
        assertThat(SidecarFields.closest("something", SidecarKeys.TOP_KEYS)).isEqualTo(Optional.empty());
    }

    @Test
    void readsTheEmbeddingKeys() throws IOException {
        SidecarParser.Parsed parsed = parse("""
                kind: embedding
                embedding:
                  pooling: mean
                  normalize: false
                  framing: template
                  end_of_text: "</s>"
                  query_prefix: "query: "
                  document_prefix: "passage: "
                  dimensions: 768
                  matryoshka: true
                  max_input_tokens: 2k
                """);
        assertThat(parsed.problems()).isEmpty();
        Sidecar s = parsed.sidecar().orElseThrow();
        assertThat(s.kind()).contains(ModelKind.EMBEDDING);
        EmbeddingSettings e = s.embedding().applyTo(EmbeddingSettings.generic());
        assertThat(e).isEqualTo(new EmbeddingSettings(EmbeddingSettings.Pooling.MEAN, false,
                EmbeddingSettings.Framing.TEMPLATE, "</s>", "query: ", "passage: ", 768, true, 2048));
        // a key left out keeps the profile's value
        assertThat(parse("embedding:\n  pooling: last\n").sidecar().orElseThrow().embedding()
                .applyTo(e).normalize()).isFalse();
    }

    @Test
    void badEmbeddingValuesAreErrorsNamingTheKey() throws IOException {
        SidecarParser.Parsed parsed = parse("""
                kind: reranker
                embedding:
                  pooling: max
                  framing: chat
                  dimensions: 0
                  normalise: true
                """);
        assertThat(parsed.sidecar()).isEmpty();
        assertThat(keys(parsed.errors())).containsExactlyInAnyOrder("kind", "embedding.pooling", "embedding.framing",
                "embedding.dimensions");
        assertThat(keys(parsed.warnings())).containsExactly("embedding.normalise");
        assertThat(parsed.warnings().getFirst().message()).contains("did you mean 'embedding.normalize'");
        assertThat(keys(parse("embedding: last\n").errors())).containsExactly("embedding");
    }
}
