package io.rkllm.server.download;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** What deleting one model removes from the models directory, and what it leaves. */
class ModelsDirectoryTest {
    @TempDir
    Path dir;

    private Path file(String relative) throws IOException {
        Path p = dir.resolve("models").resolve(relative);
        Files.createDirectories(p.getParent());
        return Files.writeString(p, relative);
    }

    private List<String> tree() throws IOException {
        Path models = dir.resolve("models");
        try (Stream<Path> walk = Files.walk(models)) {
            return walk.filter(p -> !p.equals(models)).map(p -> models.relativize(p).toString()).sorted().toList();
        }
    }

    private ModelsDirectory models() {
        return new ModelsDirectory(dir.resolve("models"), DiskSpace.SYSTEM, List.of(".rkllm", ".gguf"));
    }

    @Test
    void aModelAloneInItsFolderTakesTheFolderWithIt() throws Exception {
        Path model = file("Qwen2.5-VL-3B/qwen2.5-vl-3b_w8a8_rk3588.rkllm");
        file("Qwen2.5-VL-3B/qwen2.5-vl-3b_vision_rk3588.rknn");
        file("Qwen2.5-VL-3B/model.yaml");
        file("Qwen2.5-VL-3B/.pull.json");
        file("Other/other.gguf");

        models().delete(model);

        assertThat(tree()).containsExactly("Other", "Other/other.gguf");
    }

    @Test
    void aModelBesideOthersTakesOnlyItsOwnFilesWithItsPartsAndSidecar() throws Exception {
        Path model = file("Llama/big-00001-of-00002.gguf");
        file("Llama/big-00002-of-00002.gguf");
        file("Llama/big.model.yaml");
        file("Llama/small.gguf");
        file("Llama/model.yaml");
        Path flat = file("gemma.rkllm");
        file("gemma.model.yaml");

        models().delete(model);
        models().delete(flat);

        assertThat(tree()).containsExactly("Llama", "Llama/model.yaml", "Llama/small.gguf");
    }

    @Test
    void theModelFilesOfEveryEngineTheServerHasAreKeptBesideTheOneDeleted() throws Exception {
        // a third engine's files, named by the endings the server's providers give (ThirdEngineTest's .echo)
        Path model = file("Echo/one.echo");
        file("Echo/one.model.yaml");
        file("Echo/two.echo");

        new ModelsDirectory(dir.resolve("models"), DiskSpace.SYSTEM, List.of(".rkllm", ".gguf", ".echo"))
                .delete(model);

        assertThat(tree()).containsExactly("Echo", "Echo/two.echo");
    }

    @Test
    void aLinkedFolderIsUnlinkedNotEmptied() throws Exception {
        Path elsewhere = Files.createDirectories(dir.resolve("disk/Qwen3"));
        Files.writeString(elsewhere.resolve("qwen3.gguf"), "weights");
        Files.createDirectories(dir.resolve("models"));
        Files.createSymbolicLink(dir.resolve("models/Qwen3"), elsewhere);

        models().delete(dir.resolve("models/Qwen3/qwen3.gguf"));

        assertThat(tree()).isEmpty();
        assertThat(elsewhere.resolve("qwen3.gguf")).hasContent("weights");
    }

    @Test
    void nothingOutsideTheModelsDirectory() throws Exception {
        Path outside = Files.writeString(dir.resolve("x.gguf"), "x");
        file("a/a.gguf");

        PullException e = catchThrowableOfType(PullException.class, () -> models().delete(outside));

        assertThat(e.kind()).isEqualTo(PullException.Kind.INVALID);
        assertThat(outside).exists();
        assertThat(catchThrowableOfType(PullException.class,
                () -> models().delete(dir.resolve("models/a/../../x.gguf")))).isNotNull();
        assertThat(outside).exists();
    }

    @Test
    void partialDownloadsNoPullWroteForAWeekAreRemovedAndTheStagingFolderWithThem() throws Exception {
        Path old = file(".pull/sha256-aaaa.partial");
        Path recent = file(".pull/sha256-bbbb.partial");
        java.time.Instant now = java.time.Instant.parse("2026-11-29T06:00:00Z");
        Files.setLastModifiedTime(old, java.nio.file.attribute.FileTime.from(now.minus(java.time.Duration.ofDays(8))));
        Files.setLastModifiedTime(recent, java.nio.file.attribute.FileTime.from(now.minus(java.time.Duration.ofDays(6))));

        assertThat(models().pruneStale(ModelsDirectory.STALE_PARTIAL, now)).containsExactly(old);
        assertThat(tree()).containsExactly(".pull", ".pull/sha256-bbbb.partial");

        assertThat(models().pruneStale(ModelsDirectory.STALE_PARTIAL, now.plus(java.time.Duration.ofDays(2))))
                .containsExactly(recent);
        assertThat(tree()).isEmpty();
        assertThat(models().pruneStale(ModelsDirectory.STALE_PARTIAL, now)).isEmpty();
    }
}
