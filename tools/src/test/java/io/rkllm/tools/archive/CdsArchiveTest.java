package io.rkllm.tools.archive;

import static org.assertj.core.api.Assertions.assertThat;

import io.rkllm.server.deploy.ChildServer;
import io.rkllm.server.deploy.Repo;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code rkllm-server cds-archive} with the unit's archive options, as the package runs it at
 * installation: every request answered as expected, an archive written as the command exits, and a
 * server started afterwards with the same options takes the HTTP stack's classes from it.
 */
class CdsArchiveTest {
    @TempDir
    Path dir;

    @Test
    void theCommandLeavesAnArchiveThatTheServerThenUses() throws Exception {
        Path archive = dir.resolve("rkllm-server.jsa");
        List<String> archiveOptions = List.of("-XX:SharedArchiveFile=" + archive, "-XX:+AutoCreateSharedArchive",
                "-Xlog:cds=off", "-Xlog:cds+dynamic=off");
        List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "--enable-native-access=ALL-UNNAMED", "-XX:+UseSerialGC"));
        command.addAll(archiveOptions);
        String classPath = jarredClassPath();
        command.addAll(List.of("-cp", classPath, "io.rkllm.server.Main", "cds-archive"));
        Repo.Result trained = Repo.run(command, Map.of("HOME", dir.toString(), "RKLLM_SIM_TIME_SCALE", "0"));

        assertThat(trained.code()).as(trained.output()).isZero();
        assertThat(trained.output()).contains("cds-archive: 17 of 17 requests answered as expected")
                .doesNotContain("instead of");
        assertThat(archive).isNotEmptyFile();

        Path classes = dir.resolve("classes.log");
        List<String> options = new ArrayList<>(archiveOptions);
        options.add("-Xlog:class+load=info:file=" + classes);
        ChildServer server = ChildServer.start(dir, classPath, Map.of(), options);
        try {
            server.awaitPort();
            server.process().destroy(); // SIGTERM: an orderly stop, which also removes its temporary files
            assertThat(server.process().waitFor(60, java.util.concurrent.TimeUnit.SECONDS)).isTrue();
        } finally {
            server.destroyIfAlive();
        }
        String loaded = Files.readString(classes);
        assertThat(loaded).containsPattern("io\\.rkllm\\.server\\.http\\.HttpServer source: shared objects file \\(top\\)")
                .containsPattern("io\\.rkllm\\.ffm\\.RkllmRuntime source: shared objects file \\(top\\)")
                .containsPattern("org\\.eclipse\\.jetty\\.server\\.Server source: shared objects file \\(top\\)")
                .containsPattern("io\\.javalin\\.Javalin source: shared objects file \\(top\\)")
                .containsPattern("com\\.fasterxml\\.jackson\\.databind\\.ObjectMapper source: shared objects file \\(top\\)");
    }

    /**
     * The test class path with every directory in it (this module's classes) made a jar: the JVM archives
     * classes from jars only, and refuses to write an archive for a class path with a non-empty directory.
     */
    private String jarredClassPath() throws IOException {
        java.util.spi.ToolProvider jar = java.util.spi.ToolProvider.findFirst("jar").orElseThrow();
        List<String> entries = new ArrayList<>();
        for (String entry : System.getProperty("java.class.path").split(java.io.File.pathSeparator)) {
            Path path = Path.of(entry);
            if (Files.isDirectory(path)) {
                Path jarred = dir.resolve("classpath-" + entries.size() + ".jar");
                int code = jar.run(System.out, System.err, "--create", "--file", jarred.toString(), "-C", entry, ".");
                assertThat(code).as("jar " + entry).isZero();
                entries.add(jarred.toString());
            } else {
                entries.add(entry);
            }
        }
        return String.join(java.io.File.pathSeparator, entries);
    }

    @Test
    void theCommandTakesNoOptions() throws IOException {
        Repo.Result r = Repo.run(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp", System.getProperty("java.class.path"), "io.rkllm.server.Main", "cds-archive", "--port", "1"),
                Map.of("HOME", dir.toString()));
        assertThat(r.code()).isEqualTo(2);
        assertThat(r.output()).contains("cds-archive takes no options");
    }
}
