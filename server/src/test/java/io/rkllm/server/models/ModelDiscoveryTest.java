package io.rkllm.server.models;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Instant;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeFalse;

class ModelDiscoveryTest {

    @TempDir
    Path models;

    private final ModelDiscovery discovery = TestDiscovery.standard();

    /** A simulated-runtime model file (the server never reads it). */
    private Path model(String relative) throws IOException {
        Path file = models.resolve(relative);
        Files.createDirectories(file.getParent());
        Files.writeString(file, "#rkllm-sim 1\n");
        return file;
    }

    private Path write(String relative, String content) throws IOException {
        Path file = models.resolve(relative);
        Files.createDirectories(file.getParent());
        Files.writeString(file, content);
        return file;
    }

    private DiscoveryResult discover() {
        return discovery.discover(models);
    }

    private static List<String> ids(DiscoveryResult result) {
        return result.models().stream().map(ModelDescriptor::id).toList();
    }

    private static ModelDescriptor only(DiscoveryResult result) {
        assertThat(result.models()).hasSize(1);
        return result.models().getFirst();
    }

    @Test
    void folderLayoutUsesTheFolderName() throws IOException {
        Path file = model("Qwen3-1.7B-RK3588-w8a8/qwen3-1.7b_w8a8_rk3588.rkllm");
        Files.setLastModifiedTime(file, FileTime.from(Instant.parse("2025-05-01T10:00:00Z")));

        DiscoveryResult result = discover();

        assertThat(result.errors()).isEmpty();
        assertThat(result.warnings()).isEmpty();
        ModelDescriptor m = only(result);
        assertThat(m.id()).isEqualTo("qwen3-1.7b-rk3588-w8a8");
        assertThat(m.displayName()).isEqualTo("Qwen3-1.7B-RK3588-w8a8");
        assertThat(m.file()).isEqualTo(file.toAbsolutePath());
        assertThat(m.sizeBytes()).isEqualTo(Files.size(file));
        assertThat(m.modified()).isEqualTo(Instant.parse("2025-05-01T10:00:00Z"));
        assertThat(m.family()).isEqualTo("qwen3");
        assertThat(m.capabilities()).isEqualTo(new Capabilities(true, true));
        assertThat(m.thinkingStartsOpen()).isFalse();
        assertThat(m.contextLength()).isEqualTo(4096);
        assertThat(m.source()).isEqualTo(ModelDescriptor.SOURCE_DEFAULT);
        assertThat(m.sampling().topK()).hasValue(20);
        assertThat(m.chatTemplate()).isEmpty();
        assertThat(m.defaultSystemPrompt()).isEmpty();
        assertThat(m.aliases()).isEmpty();
    }

    @Test
    void flatLayoutUsesTheFileStem() throws IOException {
        model("gemma-3-1b-it_8k.rkllm");
        model("Llama-3.2-1B-Instruct.RKLLM");

        DiscoveryResult result = discover();

        assertThat(ids(result)).containsExactly("gemma-3-1b-it_8k", "llama-3.2-1b-instruct");
        ModelDescriptor gemma = result.models().getFirst();
        assertThat(gemma.displayName()).isEqualTo("gemma-3-1b-it_8k");
        assertThat(gemma.family()).isEqualTo("gemma");
        assertThat(gemma.contextLength()).isEqualTo(8192);
        assertThat(gemma.source()).isEqualTo(ModelDescriptor.SOURCE_NAME);
    }

    @Test
    void severalFilesInOneFolderAreOneModelEach() throws IOException {
        model("Qwen3/qwen3-0.6b.rkllm");
        model("Qwen3/qwen3-1.7b.rkllm");

        assertThat(ids(discover())).containsExactly("qwen3-qwen3-0.6b", "qwen3-qwen3-1.7b");
    }

    @Test
    void descendsThreeLevelsButNoFurther() throws IOException {
        model("Qwen/Qwen2.5-3B-Instruct/qwen2.5-3b.rkllm");
        model("a/b/c/too-deep.rkllm");

        DiscoveryResult result = discover();

        assertThat(ids(result)).containsExactly("qwen2.5-3b-instruct");
        assertThat(only(result).family()).isEqualTo("qwen2.5");
        assertThat(TestDiscovery.standard(FamilyProfiles.builtIn(), 1).discover(models).models()).isEmpty();
    }

    @Test
    void sanitisesIds() throws IOException {
        model("My Model (Test)/m.rkllm");
        model("Ünïcödé Modèl/m.rkllm");
        model("UPPER_case.Model/m.rkllm");
        model("通义千问/qwen-chat.rkllm");
        model("通义千问.rkllm");

        assertThat(ids(discover())).containsExactly("model", "my-model-test", "qwen-chat", "unicode-model",
                "upper_case.model");
    }

    @Test
    void duplicateIdsGetADeterministicSuffixAndAWarning() throws IOException {
        model("Qwen3 1.7B/a.rkllm");
        model("qwen3-1.7b/b.rkllm");
        model("qwen3-1.7b.rkllm");

        DiscoveryResult result = discover();

        assertThat(ids(result)).containsExactly("qwen3-1.7b", "qwen3-1.7b-2", "qwen3-1.7b-3");
        assertThat(result.models()).extracting(m -> models.relativize(m.file()).toString())
                .containsExactly("Qwen3 1.7B/a.rkllm", "qwen3-1.7b.rkllm", "qwen3-1.7b/b.rkllm");
        assertThat(result.warnings()).hasSize(2)
                .allSatisfy(w -> assertThat(w.message()).contains("is already used by"));
        assertThat(ids(discover())).isEqualTo(ids(result));
    }

    @Test
    void contextLengthFromNames() throws IOException {
        model("Qwen3-1.7B-4k/q.rkllm");
        model("Phi-3-mini-4k-instruct/phi3_8k.rkllm");
        model("Qwen3-4B-Instruct-2507/Qwen3-4B-Instruct-16K-w8a8.rkllm");
        model("qwen3-0.6b-ctx4096/q.rkllm");
        model("gemma-3-1b/g.rkllm");

        DiscoveryResult result = discover();

        assertThat(result.models()).extracting(ModelDescriptor::id, ModelDescriptor::contextLength,
                ModelDescriptor::source).containsExactly(
                org.assertj.core.groups.Tuple.tuple("gemma-3-1b", 4096, "default"),
                org.assertj.core.groups.Tuple.tuple("phi-3-mini-4k-instruct", 8192, "name"),
                org.assertj.core.groups.Tuple.tuple("qwen3-0.6b-ctx4096", 4096, "name"),
                org.assertj.core.groups.Tuple.tuple("qwen3-1.7b-4k", 4096, "name"),
                org.assertj.core.groups.Tuple.tuple("qwen3-4b-instruct-2507", 16384, "name"));
    }

    @Test
    void implausibleNameHintsWarnAndFallBackToTheDefault() throws IOException {
        model("Phi-3-mini-128k-instruct/phi.rkllm");

        DiscoveryResult result = discover();

        assertThat(only(result).contextLength()).isEqualTo(4096);
        assertThat(only(result).source()).isEqualTo("default");
        assertThat(result.warnings()).singleElement()
                .satisfies(w -> assertThat(w.message()).contains("131072").contains("context_length"));
    }

    @Test
    void sidecarSetsEverything() throws IOException {
        model("my-model/m.rkllm");
        write("my-model/model.yaml", """
                name: My Model
                family: qwen3
                context_length: 16k
                capabilities: {thinking: false, tools: false}
                temperature: 0.3
                top_p: 0.5
                top_k: 5
                repeat_penalty: 1.2
                frequency_penalty: 0.2
                presence_penalty: 0.4
                max_tokens: 1000
                thinking_sampling: {temperature: 0.1}
                chat_template: {system_prompt: S, prompt_prefix: P, prompt_postfix: Q}
                default_system_prompt: Be brief.
                aliases: [mine]
                """);

        DiscoveryResult result = discover();

        assertThat(result.errors()).isEmpty();
        assertThat(result.warnings()).isEmpty();
        ModelDescriptor m = only(result);
        assertThat(m.id()).isEqualTo("my-model");
        assertThat(m.displayName()).isEqualTo("My Model");
        assertThat(m.family()).isEqualTo("qwen3");
        assertThat(m.contextLength()).isEqualTo(16384);
        assertThat(m.source()).isEqualTo("sidecar");
        assertThat(m.capabilities()).isEqualTo(Capabilities.none());
        assertThat(m.sampling()).isEqualTo(SamplingDefaults.of(0.3, 0.5, 5, 1.2, 0.2, 0.4).withMaxTokens(1000));
        assertThat(m.thinkingSampling().temperature()).hasValue(0.1);
        assertThat(m.samplingFor(true)).isEqualTo(m.sampling()); // cannot think: no thinking overrides
        assertThat(m.chatTemplate()).contains(new ChatTemplate("S", "P", "Q"));
        assertThat(m.defaultSystemPrompt()).contains("Be brief.");
        assertThat(m.aliases()).containsExactly("mine");
    }

    @Test
    void sidecarOverridesTheFamilyProfileFieldByField() throws IOException {
        model("Qwen3-1.7B/q.rkllm");
        write("Qwen3-1.7B/model.yaml", """
                temperature: 0.5
                capabilities: {tools: false}
                thinking_sampling: {top_k: 40}
                """);

        ModelDescriptor m = only(discover());

        assertThat(m.sampling()).isEqualTo(SamplingDefaults.of(0.5, 0.8, 20, 1.1, 0.0, 1.5));
        assertThat(m.capabilities()).isEqualTo(new Capabilities(true, false));
        SamplingDefaults thinking = m.samplingFor(true);
        assertThat(thinking.temperature()).hasValue(0.6);
        assertThat(thinking.topP()).hasValue(0.95);
        assertThat(thinking.topK()).hasValue(40);
        assertThat(thinking.presencePenalty()).hasValue(0.0);
        assertThat(m.samplingFor(false)).isEqualTo(m.sampling());
    }

    @Test
    void sidecarFamilyChoosesTheProfile() throws IOException {
        model("my-model/m.rkllm");
        write("my-model/model.yaml", "family: deepseek-r1\n");
        model("other/o.rkllm");
        write("other/model.yaml", "family: mistral\n");

        DiscoveryResult result = discover();

        ModelDescriptor mine = result.models().getFirst();
        assertThat(mine.family()).isEqualTo("deepseek-r1");
        assertThat(mine.thinkingStartsOpen()).isTrue();
        ModelDescriptor other = result.models().get(1);
        assertThat(other.family()).isEqualTo("mistral");
        assertThat(other.sampling()).isEqualTo(FamilyProfiles.builtIn().generic().sampling());
        assertThat(result.warnings()).singleElement().satisfies(w -> assertThat(w.key()).contains("family"));
    }

    @Test
    void aMoreSpecificDetectedProfileOfTheSameFamilyIsKept() throws IOException {
        model("Qwen3-4B-Instruct-2507/q.rkllm");
        write("Qwen3-4B-Instruct-2507/model.yaml", "family: qwen3\n");

        assertThat(only(discover()).capabilities().thinking()).isFalse();
    }

    @Test
    void thinkingStartsOpenNeedsThinking() throws IOException {
        model("DeepSeek-R1-Distill-Qwen-1.5B/r1.rkllm");
        write("DeepSeek-R1-Distill-Qwen-1.5B/model.yaml", "capabilities: {thinking: false}\n");
        model("plain/p.rkllm");
        write("plain/model.yaml", "thinking_starts_open: true\n");

        DiscoveryResult result = discover();

        ModelDescriptor r1 = only(result);
        assertThat(r1.capabilities().thinking()).isFalse();
        assertThat(r1.thinkingStartsOpen()).isFalse();
        assertThat(result.errors()).singleElement().satisfies(e -> {
            assertThat(e.path()).isEqualTo(models.resolve("plain/model.yaml"));
            assertThat(e.key()).contains("thinking_starts_open");
        });
    }

    @Test
    void aBadSidecarSkipsOnlyItsModelAndNamesFileAndKey() throws IOException {
        model("good/g.rkllm");
        model("bad/b.rkllm");
        write("bad/model.yaml", "temperature: hot\n");

        DiscoveryResult result = discover();

        assertThat(ids(result)).containsExactly("good");
        assertThat(result.hasErrors()).isTrue();
        assertThat(result.errors()).extracting(Problem::toString).containsExactly(
                models.resolve("bad/model.yaml") + ": temperature: expected a number, got \"hot\"",
                models.resolve("bad/b.rkllm") + ": not served as 'bad' because its sidecar model.yaml has errors");
    }

    @Test
    void unknownSidecarKeysOnlyWarn() throws IOException {
        model("m/m.rkllm");
        write("m/model.yaml", "colour: blue\n");

        DiscoveryResult result = discover();

        assertThat(ids(result)).containsExactly("m");
        assertThat(result.errors()).isEmpty();
        assertThat(result.warnings()).singleElement().satisfies(w -> assertThat(w.key()).contains("colour"));
    }

    @Test
    void perFileSidecarsInAMultiFileFolder() throws IOException {
        model("Qwen3/small.rkllm");
        model("Qwen3/big.rkllm");
        write("Qwen3/model.yaml", "context_length: 2048\n");
        write("Qwen3/big.model.yaml", "name: Big one\n");

        DiscoveryResult result = discover();

        assertThat(result.models()).extracting(ModelDescriptor::id, ModelDescriptor::displayName,
                ModelDescriptor::contextLength).containsExactly(
                org.assertj.core.groups.Tuple.tuple("qwen3-big", "Big one", 4096),
                org.assertj.core.groups.Tuple.tuple("qwen3-small", "Qwen3-small", 2048));
    }

    @Test
    void flatFilesUseOnlyTheirOwnSidecar() throws IOException {
        model("a.rkllm");
        model("b.rkllm");
        write("b.model.yaml", "context_length: 8192\n");
        write("model.yaml", "context_length: 2048\n");

        DiscoveryResult result = discover();

        assertThat(result.models()).extracting(ModelDescriptor::contextLength).containsExactly(4096, 8192);
        assertThat(result.warnings()).singleElement()
                .satisfies(w -> assertThat(w.path()).isEqualTo(models.resolve("model.yaml")));
    }

    @Test
    void readsTheReferenceServersModelConfigJson() throws IOException {
        model("Qwen2.5-1.5B-Instruct/q.rkllm");
        write("Qwen2.5-1.5B-Instruct/model_config.json", "{\"context_length\": 8192}");

        ModelDescriptor m = only(discover());

        assertThat(m.contextLength()).isEqualTo(8192);
        assertThat(m.source()).isEqualTo("sidecar");
    }

    @Test
    void skipsHiddenEntriesAndOtherFiles() throws IOException {
        model("visible/v.rkllm");
        model(".cache/hidden-folder-model.rkllm");
        model("visible2/.hidden.rkllm");
        model(".hidden-flat.rkllm");
        write("notes/README.md", "hello");
        write("partial/model.rkllm.part", "x");
        write("gguf/model.gguf", "x");
        write("vision/encoder.rknn", "x");
        write(".rkllm", "x");

        DiscoveryResult result = discover();

        assertThat(ids(result)).containsExactly("visible");
        assertThat(result.warnings()).isEmpty();
    }

    @Test
    void emptyModelFilesAreSkippedWithAWarning() throws IOException {
        write("broken/b.rkllm", "");

        DiscoveryResult result = discover();

        assertThat(result.models()).isEmpty();
        assertThat(result.warnings()).singleElement()
                .satisfies(w -> assertThat(w.message()).contains("empty"));
    }

    @Test
    void neverReadsModelFileContent() throws IOException {
        write("binary/b.rkllm", "\u0000\u0001garbage that is not a simulated model");

        assertThat(ids(discover())).containsExactly("binary");
    }

    @Test
    void missingModelsDirectoryIsAClearError() {
        Path missing = models.resolve("nope");

        DiscoveryResult result = discovery.discover(missing);

        assertThat(result.models()).isEmpty();
        assertThat(result.errors()).singleElement().satisfies(e -> {
            assertThat(e.path()).isEqualTo(missing);
            assertThat(e.message()).isEqualTo("the models directory does not exist");
        });
    }

    @Test
    void tildeIsExplained() {
        DiscoveryResult result = discovery.discover(Path.of("~/definitely-not-here-models"));

        assertThat(result.errors()).singleElement()
                .satisfies(e -> assertThat(e.message()).contains("'~' is not expanded"));
    }

    @Test
    void aFileIsNotAModelsDirectory() throws IOException {
        Path file = write("file.txt", "x");

        assertThat(discovery.discover(file).errors()).singleElement()
                .satisfies(e -> assertThat(e.message()).contains("not a directory"));
    }

    @Test
    void emptyDirectoryHasNoModelsAndNoProblems() {
        DiscoveryResult result = discover();
        assertThat(result.models()).isEmpty();
        assertThat(result.errors()).isEmpty();
    }

    @Test
    void followsSymlinkedModelFoldersAndFiles(@TempDir Path elsewhere) throws IOException {
        Path real = elsewhere.resolve("Qwen3-1.7B");
        Files.createDirectories(real);
        Files.writeString(real.resolve("q.rkllm"), "#rkllm-sim 1\n");
        Files.createSymbolicLink(models.resolve("qwen-linked"), real);
        Files.writeString(elsewhere.resolve("gemma.rkllm"), "#rkllm-sim 1\n");
        Files.createDirectories(models.resolve("Gemma-3-1B"));
        Files.createSymbolicLink(models.resolve("Gemma-3-1B/g.rkllm"), elsewhere.resolve("gemma.rkllm"));

        DiscoveryResult result = discover();

        assertThat(ids(result)).containsExactly("gemma-3-1b", "qwen-linked");
        assertThat(result.warnings()).isEmpty();
    }

    @Test
    void survivesSymlinkLoopsAndDuplicateLinks() throws IOException {
        model("Qwen3-1.7B/q.rkllm");
        Files.createSymbolicLink(models.resolve("Qwen3-1.7B/loop"), models);
        Files.createSymbolicLink(models.resolve("zz-same-folder"), models.resolve("Qwen3-1.7B"));

        DiscoveryResult result = discover();

        assertThat(ids(result)).containsExactly("qwen3-1.7b");
        assertThat(result.warnings()).hasSize(2)
                .allSatisfy(w -> assertThat(w.message()).contains("already scanned"));
    }

    @Test
    void brokenSymlinksWarn() throws IOException {
        model("ok/o.rkllm");
        Files.createDirectories(models.resolve("dangling"));
        Files.createSymbolicLink(models.resolve("dangling/d.rkllm"), models.resolve("missing.rkllm"));

        DiscoveryResult result = discover();

        assertThat(ids(result)).containsExactly("ok");
        assertThat(result.warnings()).singleElement()
                .satisfies(w -> assertThat(w.message()).contains("broken symbolic link"));
    }

    @Test
    void unreadableDirectoriesWarn() throws IOException {
        assumeFalse("root".equals(System.getProperty("user.name")), "root can read every directory");
        model("ok/o.rkllm");
        Path locked = Files.createDirectories(models.resolve("locked"));
        model("locked/inner/x.rkllm");
        Files.setPosixFilePermissions(locked, PosixFilePermissions.fromString("---------"));
        try {
            DiscoveryResult result = discover();

            assertThat(ids(result)).containsExactly("ok");
            assertThat(result.warnings()).singleElement()
                    .satisfies(w -> assertThat(w.message()).contains("permission denied"));
        } finally {
            Files.setPosixFilePermissions(locked, PosixFilePermissions.fromString("rwx------"));
        }
    }

    @Test
    void aliasesThatCannotResolveToOneModelAreDropped() throws IOException {
        model("alpha/a.rkllm");
        write("alpha/model.yaml", "aliases: [shared, beta, alpha, own-a]\n");
        model("beta/b.rkllm");
        write("beta/model.yaml", "aliases: [shared]\n");

        DiscoveryResult result = discover();

        assertThat(result.models().getFirst().aliases()).containsExactly("own-a");
        assertThat(result.models().get(1).aliases()).isEmpty();
        assertThat(result.warnings()).extracting(Problem::message).containsExactlyInAnyOrder(
                "'shared' is claimed by several models [alpha, beta]; ignored for all of them",
                "'beta' of model 'alpha' is the id of another model; ignored",
                "'shared' is claimed by several models [alpha, beta]; ignored for all of them");
    }

    @Test
    void theBundledSimulatedModelsDiscoverCleanly() throws Exception {
        java.net.URL index = getClass().getResource("/io/rkllm/server/simulate/models/index.txt");
        org.junit.jupiter.api.Assumptions.assumeTrue(index != null && "file".equals(index.getProtocol()),
                "bundled simulated models not on the class path as files");
        Path bundled = Path.of(index.toURI()).getParent();

        DiscoveryResult result = discovery.discover(bundled);

        assertThat(result.errors()).isEmpty();
        assertThat(result.warnings()).isEmpty();
        assertThat(result.models()).isNotEmpty().allSatisfy(m -> assertThat(m.source()).isEqualTo("sidecar"));
    }

    @Test
    void catalogResolvesDiscoveredModels() throws IOException {
        model("Qwen3-1.7B/q.rkllm");
        write("Qwen3-1.7B/model.yaml", "aliases: [thinker]\n");
        model("Gemma-3-1B/g.rkllm");

        ModelCatalog catalog = discover().catalog();

        assertThat(catalog.resolve("qwen")).get().extracting(ModelDescriptor::id).isEqualTo("qwen3-1.7b");
        assertThat(catalog.resolve("THINKER")).get().extracting(ModelDescriptor::id).isEqualTo("qwen3-1.7b");
        assertThat(catalog.resolve("gemma")).get().extracting(ModelDescriptor::id).isEqualTo("gemma-3-1b");
    }

    @Test
    void anEmbeddingModelIsRecognisedByItsNameOrItsSidecar() throws IOException {
        model("Qwen3-Embedding-0.6B-rk3588/q.rkllm");
        model("my-embedder/m.rkllm");
        write("my-embedder/model.yaml", "kind: embedding\nembedding:\n  end_of_text: \"</s>\"\n  pooling: mean\n");
        model("Qwen3-1.7B/c.rkllm");

        DiscoveryResult result = discover();

        assertThat(result.warnings()).isEmpty();
        ModelDescriptor qwen = result.catalog().resolve("qwen3-embedding-0.6b-rk3588").orElseThrow();
        assertThat(qwen.kind()).isEqualTo(ModelKind.EMBEDDING);
        assertThat(qwen.capabilities()).isEqualTo(Capabilities.none());
        assertThat(qwen.embedding().orElseThrow().endOfText()).isEqualTo("<|endoftext|>");
        ModelDescriptor mine = result.catalog().resolve("my-embedder").orElseThrow();
        assertThat(mine.embedding().orElseThrow()).isEqualTo(new EmbeddingSettings(EmbeddingSettings.Pooling.MEAN,
                true, EmbeddingSettings.Framing.RAW, "</s>", "", "", 0, false, 0));
        assertThat(result.catalog().resolve("qwen3-1.7b").orElseThrow().kind()).isEqualTo(ModelKind.CHAT);
    }

    @Test
    void embeddingKeysOnAChatModelAndCapabilitiesOnAnEmbeddingModelAreWarnedAbout() throws IOException {
        model("Qwen3-1.7B/c.rkllm");
        write("Qwen3-1.7B/model.yaml", "embedding:\n  pooling: mean\n");
        model("Qwen3-Embedding-0.6B/e.rkllm");
        write("Qwen3-Embedding-0.6B/model.yaml", "capabilities:\n  tools: true\n");

        DiscoveryResult result = discover();

        assertThat(result.errors()).isEmpty();
        assertThat(result.warnings()).extracting(p -> p.key().orElse("")).containsExactlyInAnyOrder("embedding",
                "capabilities");
        assertThat(result.catalog().resolve("qwen3-embedding-0.6b").orElseThrow().capabilities().tools()).isFalse();
        // kind: chat turns a name that looks like an embedding model back into a chat model
        write("Qwen3-Embedding-0.6B/model.yaml", "kind: chat\n");
        assertThat(discover().catalog().resolve("qwen3-embedding-0.6b").orElseThrow().isEmbedding()).isFalse();
    }
}
