package io.rkllm.server.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The README's quick start on a machine whose default java is 17: scripts/build and ./rkllm-server find a
 * Java 25 in the JVM directory by themselves (a JDK with javac for the build, any Java 25 to run). A copy
 * of the checkout's scripts with a fake ./mvnw and fake Java installations that print how they were
 * started. scripts/quickstart-check (run by .ci/run) does the same for real on this machine.
 */
class CheckoutScriptsTest {
    @TempDir
    Path dir;
    Path checkout;
    Path jvms;
    Path oldJava;

    @BeforeEach
    void setUp() throws IOException {
        checkout = dir.resolve("checkout");
        for (String script : List.of("rkllm-server", "packaging/bin/rkllm-server", "scripts/build",
                "scripts/lib/find-jdk.sh")) {
            Path copy = checkout.resolve(script);
            Files.createDirectories(copy.getParent());
            Files.copy(Repo.file(script), copy);
            copy.toFile().setExecutable(true, false);
        }
        Path mvnw = checkout.resolve("mvnw");
        Files.writeString(mvnw, "#!/bin/sh\necho \"mvnw with JAVA_HOME=$JAVA_HOME: $*\"\n");
        mvnw.toFile().setExecutable(true, false);
        jvms = Files.createDirectories(dir.resolve("jvm"));
        oldJava = fakeJava(dir.resolve("java-17"), "17.0.15", true);
    }

    /** A fake Java installation of {@code version} whose java (and javac) print their name and arguments. */
    private Path fakeJava(Path home, String version, boolean jdk) throws IOException {
        Files.createDirectories(home.resolve("bin"));
        Files.writeString(home.resolve("release"), "JAVA_VERSION=\"" + version + "\"\n");
        for (String tool : jdk ? List.of("java", "javac") : List.of("java")) {
            Path file = home.resolve("bin").resolve(tool);
            Files.writeString(file, "#!/bin/sh\necho \"" + home.getFileName() + ": $*\"\n");
            file.toFile().setExecutable(true, false);
        }
        return home;
    }

    private void builtJar() throws IOException {
        Path jar = checkout.resolve("server/target/rkllm-server.jar");
        Files.createDirectories(jar.getParent());
        Files.writeString(jar, "jar");
    }

    /** Runs a checkout script as a newcomer would: no JAVA_HOME, the old java first on PATH. */
    private Repo.Result run(String script, String... args) {
        List<String> command = new ArrayList<>(List.of("env", "-u", "JAVA_HOME", "-u", "RKLLM_JAVA_OPTS",
                "-u", "RKLLM_SERVER_JAR", "RKLLM_JVM_DIR=" + jvms, "PATH=" + oldJava.resolve("bin") + ":/usr/bin:/bin",
                checkout.resolve(script).toString()));
        command.addAll(List.of(args));
        return Repo.run(command, Map.of());
    }

    @Test
    void theLauncherRunsTheCheckoutsJarOnTheJava25ItFinds() throws IOException {
        builtJar();
        fakeJava(jvms.resolve("temurin-25-jre-amd64"), "25.0.1", false);
        Repo.Result r = run("rkllm-server", "--simulate");
        assertThat(r.code()).as(r.output()).isZero();
        assertThat(r.output().strip()).isEqualTo("temurin-25-jre-amd64: -jar "
                + checkout.resolve("server/target/rkllm-server.jar") + " --simulate");
    }

    @Test
    void theLauncherSaysHowToBuildAMissingJar() throws IOException {
        fakeJava(jvms.resolve("temurin-25-jdk-amd64"), "25.0.1", true);
        Repo.Result r = run("rkllm-server", "--simulate");
        assertThat(r.code()).isEqualTo(2);
        assertThat(r.output()).contains("not built yet", "scripts/build");
    }

    @Test
    void theBuildRunsTheTestCommandOnAJdk25NotOnTheDefaultJava() throws IOException {
        fakeJava(jvms.resolve("temurin-25-jre-amd64"), "25.0.2", false); // no javac: cannot build
        Path jdk = fakeJava(jvms.resolve("temurin-25-jdk-amd64"), "25.0.1", true);
        fakeJava(jvms.resolve("java-17-openjdk-amd64"), "17.0.15", true);
        Repo.Result r = run("scripts/build");
        assertThat(r.code()).as(r.output()).isZero();
        assertThat(r.output()).contains("mvnw with JAVA_HOME=" + jdk + ": -B verify");

        Repo.Result packaged = run("scripts/build", "package", "-DskipTests");
        assertThat(packaged.output()).contains(": -B package -DskipTests");
    }

    @Test
    void withoutAJdk25TheBuildSaysHowToGetOne() throws IOException {
        fakeJava(jvms.resolve("java-17-openjdk-amd64"), "17.0.15", true);
        fakeJava(jvms.resolve("temurin-25-jre-amd64"), "25.0.2", false);
        Repo.Result r = run("scripts/build");
        assertThat(r.code()).isEqualTo(2);
        assertThat(r.output()).doesNotContain("mvnw with")
                .contains("no Java 25 development kit (JDK) found", "java-17-openjdk-amd64 (Java 17)",
                        "temurin-25-jre-amd64 (Java 25, no javac)", "openjdk-25-jdk-headless", "temurin-25-jdk",
                        "JAVA_HOME");
    }
}
