package io.rkllm.server.boot;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The jar's entry point: on an older java it says what to do; on Java 25 it is the server. */
class JavaVersionGateTest {
    @TempDir
    Path dir;

    private record Run(int code, String output) {
    }

    private static Run run(Path java, String... args) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(List.of(java.toString(), "-cp", System.getProperty("java.class.path"),
                "io.rkllm.server.boot.JavaVersionGate"));
        command.addAll(List.of(args));
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
        return new Run(p.exitValue(), out);
    }

    @Test
    void onJava25ItIsTheServer() throws Exception {
        Run r = run(Path.of(System.getProperty("java.home"), "bin", "java"), "--version");
        assertThat(r.code()).as(r.output()).isZero();
        assertThat(r.output()).startsWith("rkllm-server ");
    }

    @Test
    void anOlderJavaOnThisMachineSaysWhatToDo() throws Exception {
        Optional<Path> old;
        try (Stream<Path> homes = Files.list(Path.of("/usr/lib/jvm"))) {
            old = homes.filter(h -> Files.isExecutable(h.resolve("bin/java")) && release(h) > 0 && release(h) < 25)
                    .findFirst();
        } catch (IOException e) {
            old = Optional.empty();
        }
        assumeTrue(old.isPresent(), "no Java older than 25 in /usr/lib/jvm to start the jar with");
        Run r = run(old.get().resolve("bin/java"), "--simulate");
        assertThat(r.code()).as(r.output()).isEqualTo(2);
        assertThat(r.output()).contains("needs Java 25 or newer; this java is", old.get().toString(), "./rkllm-server")
                .doesNotContain("UnsupportedClassVersionError");
    }

    private static int release(Path home) {
        try {
            var m = java.util.regex.Pattern.compile("(?m)^JAVA_VERSION=\"(\\d+)").matcher(Files.readString(home.resolve("release")));
            return m.find() ? Integer.parseInt(m.group(1)) : 0;
        } catch (IOException | RuntimeException e) {
            return 0;
        }
    }

    @Test
    void theMessageNamesAnInstalledJava25OrSaysHowToGetOne() throws IOException {
        Path jvms = Files.createDirectories(dir.resolve("jvm"));
        for (String[] jvm : new String[][] {{"java-17-openjdk-amd64", "17.0.9"}, {"temurin-25-jdk-amd64", "25.0.1"},
                {"broken", null}}) {
            Path bin = Files.createDirectories(jvms.resolve(jvm[0]).resolve("bin"));
            Files.writeString(bin.resolve("java"), "#!/bin/sh\n").toFile().setExecutable(true);
            if (jvm[1] != null) {
                Files.writeString(jvms.resolve(jvm[0]).resolve("release"), "JAVA_VERSION=\"" + jvm[1] + "\"\n");
            }
        }
        List<Path> found = JavaVersionGate.installed(jvms);
        assertThat(found).containsExactly(jvms.resolve("temurin-25-jdk-amd64"));
        assertThat(JavaVersionGate.message("17.0.9", "/usr/lib/jvm/java-17", "/srv/rkllm-server.jar", found))
                .contains("this java is 17.0.9 (/usr/lib/jvm/java-17)",
                        jvms.resolve("temurin-25-jdk-amd64/bin/java") + " -jar /srv/rkllm-server.jar")
                .doesNotContain("apt install");
        assertThat(JavaVersionGate.message("17.0.9", "/j", "x.jar", List.of()))
                .contains("openjdk-25-jre-headless", "Temurin 25", "./rkllm-server");
        assertThat(JavaVersionGate.installed(dir.resolve("none"))).isEmpty();
    }

    @Test
    void featureVersions() {
        assertThat(JavaVersionGate.feature("1.8")).isEqualTo(8);
        assertThat(JavaVersionGate.feature("17")).isEqualTo(17);
        assertThat(JavaVersionGate.feature("25")).isEqualTo(25);
        assertThat(JavaVersionGate.feature("")).isZero();
    }
}
