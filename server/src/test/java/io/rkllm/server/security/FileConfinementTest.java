package io.rkllm.server.security;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Keeps the server away from files a request could name: no code of the server writes files (but the
 * simulated runtime's unpacking and the harness, which serve no request, and the download package, which
 * writes pulled models only below the models directory, under names it checks), and none uses the
 * runtime's prompt-cache or LoRA files, which would take a path. A new use has to be added here on purpose. The
 * tools module (benches, fuzz, soak: the user's commands, not the server) is not checked.
 */
class FileConfinementTest {
    private static final Pattern WRITES = Pattern.compile("Files\\.(write|writeString|newOutputStream|newBufferedWriter"
            + "|copy|move|createTemp\\w*)\\(|new FileOutputStream|new FileWriter|new RandomAccessFile|new PrintWriter\\("
            + "|FileChannel\\.open\\(");
    private static final Pattern RUNTIME_FILES = Pattern.compile("loadPromptCache|releasePromptCache|withSavePromptCache"
            + "|loadLora|LoraAdapter|withLora");
    /**
     * Sources allowed to write: --simulate's unpacking, the harness's simulated model files (fuzz, soak, the tests),
     * and the launch command's agent configuration in its temporary directory: commands of the user's, not the
     * server; and the download package (pull, and Ollama's /api/pull and
     * /api/delete, and /api/blobs with /api/create): the models directory only, the names of what it writes checked
     * (ModelName, OllamaName, ModelsDirectory.folder, a blob's name only its digest's hex), nothing outside it deleted.
     */
    private static final Set<String> MAY_WRITE = Set.of("io/rkllm/server/app/Simulation.java",
            "io/rkllm/server/harness/LocalServer.java",
            "io/rkllm/server/tools/launch/LaunchCommand.java", "io/rkllm/server/tools/launch/CodexCli.java",
            "io/rkllm/server/tools/launch/ContinueCli.java",
            "io/rkllm/server/download/ModelsDirectory.java", "io/rkllm/server/download/Receipt.java",
            "io/rkllm/server/download/Transfer.java", "io/rkllm/server/download/Uploads.java");

    @Test
    void noServerCodeWritesFilesOrHandsARuntimeAPath() throws IOException {
        Path sources = Path.of("src/main/java");
        assertThat(sources).isDirectory();
        List<String> found = new ArrayList<>();
        try (Stream<Path> files = Files.walk(sources)) {
            for (Path file : files.filter(f -> f.toString().endsWith(".java")).toList()) {
                String name = sources.relativize(file).toString().replace('\\', '/');
                String text = Files.readString(file);
                if (WRITES.matcher(text).find() && !MAY_WRITE.contains(name)) {
                    found.add(name + " writes a file");
                }
                if (RUNTIME_FILES.matcher(text).find()) {
                    found.add(name + " uses a prompt-cache or LoRA file");
                }
            }
        }
        assertThat(found).isEmpty();
    }
}
