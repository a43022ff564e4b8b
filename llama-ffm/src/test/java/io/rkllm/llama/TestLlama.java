package io.rkllm.llama;

import io.rkllm.llama.gguf.TinyBert;
import io.rkllm.llama.gguf.TinyLlama;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;

/**
 * The tests' shared fixtures: the real libllama (the one bundled in de.kherud:llama on the test class path, or
 * the one {@code -Dllama.library=PATH} names, so that another build can be checked with the same tests), opened
 * once per JVM, and the tiny models, generated once per JVM.
 */
final class TestLlama {
    private static final Holder HOLDER = new Holder();

    private TestLlama() {
    }

    private static final class Holder {
        final LlamaRuntime runtime;
        final Path chatModel;
        final Path embeddingModel;
        final Path reranker;

        Holder() {
            try {
                Path dir = Files.createDirectories(Path.of(System.getProperty("llama.test.dir",
                        System.getProperty("java.io.tmpdir") + "/llama-ffm-test")));
                Optional<Path> configured = Optional.ofNullable(System.getProperty("llama.library")).map(Path::of);
                LlamaLibrary library = new LlamaLibraryLocator(System.getenv(), System.getProperty("os.arch"),
                        dir.resolve("cache")).locate(configured);
                if (configured.isEmpty()) {
                    // the installed-library search is not what these tests are about: always the bundled one
                    library = new LlamaLibraryLocator(System.getenv(), System.getProperty("os.arch"),
                            dir.resolve("cache")).bundled().orElseThrow();
                }
                runtime = LlamaRuntime.open(library, Optional.empty());
                chatModel = dir.resolve("tiny-llama.gguf");
                TinyLlama.write(chatModel, TinyLlama.Options.chat());
                embeddingModel = dir.resolve("tiny-llama-embed.gguf");
                TinyLlama.write(embeddingModel, TinyLlama.Options.embeddingModel());
                reranker = dir.resolve("tiny-bert-reranker.gguf");
                TinyBert.write(reranker, TinyBert.Options.reranker());
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
    }

    static LlamaRuntime runtime() {
        return HOLDER.runtime;
    }

    static Path chatModel() {
        return HOLDER.chatModel;
    }

    static Path embeddingModel() {
        return HOLDER.embeddingModel;
    }

    static Path reranker() {
        return HOLDER.reranker;
    }

    /** A fresh directory for one test's files, beside the shared fixtures. */
    static Path tempDir() throws IOException {
        return Files.createTempDirectory(HOLDER.chatModel.getParent(), "case");
    }
}
