package io.rkllm.server.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * packaging/bin/rkllm-server choosing a Java runtime: JAVA_HOME, then the JVM directory's *25*, then
 * java on PATH, each only if it is 25 or newer. Fake runtimes print what they were started with.
 */
class LauncherTest {
    @TempDir
    Path dir;
    Path launcher;
    Path jvms;

    @BeforeEach
    void setUp() throws IOException {
        Path prefix = dir.resolve("prefix");
        launcher = prefix.resolve("bin/rkllm-server");
        Files.createDirectories(launcher.getParent());
        Files.copy(Repo.file("packaging/bin/rkllm-server"), launcher);
        launcher.toFile().setExecutable(true, false);
        Path jar = prefix.resolve("share/rkllm-server/rkllm-server.jar");
        Files.createDirectories(jar.getParent());
        Files.writeString(jar, "jar");
        jvms = Files.createDirectories(dir.resolve("jvm"));
    }

    /** A fake Java installation of {@code version} that prints its name and arguments. */
    private Path fakeJava(String name, String version) throws IOException {
        Path home = jvms.resolve(name);
        Files.createDirectories(home.resolve("bin"));
        Files.writeString(home.resolve("release"), "IMPLEMENTOR=\"Test\"\nJAVA_VERSION=\"" + version + "\"\n");
        Path java = home.resolve("bin/java");
        Files.writeString(java, "#!/bin/sh\necho \"" + name + ": $*\"\n");
        java.toFile().setExecutable(true, false);
        return home;
    }

    private Repo.Result launch(Map<String, String> env, String... args) {
        Map<String, String> all = new java.util.HashMap<>(env);
        all.putIfAbsent("RKLLM_JVM_DIR", jvms.toString());
        all.putIfAbsent("PATH", "/usr/bin:/bin");
        all.putIfAbsent("JAVA_HOME", "");
        List<String> command = new java.util.ArrayList<>(List.of("env", "-u", "RKLLM_JAVA_OPTS"));
        all.forEach((k, v) -> command.add(k + "=" + v));
        command.add(launcher.toString());
        command.addAll(List.of(args));
        return Repo.run(command, Map.of());
    }

    @Test
    void javaHomeFirstWhenItIs25() throws IOException {
        Path home = fakeJava("custom-25", "25.0.1");
        fakeJava("temurin-25-jdk-arm64", "25.0.2");
        Repo.Result r = launch(Map.of("JAVA_HOME", home.toString(), "RKLLM_JAVA_OPTS", "-Xmx256m -XX:+UseSerialGC"),
                "doctor", "--simulate");
        assertThat(r.code()).as(r.output()).isZero();
        assertThat(r.output().strip()).isEqualTo("custom-25: -Xmx256m -XX:+UseSerialGC -jar " + dir.resolve(
                "prefix/share/rkllm-server/rkllm-server.jar") + " doctor --simulate");
    }

    @Test
    void anOldJavaHomeIsPassedOverForTheJvmDirectory() throws IOException {
        Path old = fakeJava("java-17-openjdk-arm64", "17.0.9");
        fakeJava("openjdk-25-arm64", "25");
        Repo.Result r = launch(Map.of("JAVA_HOME", old.toString()), "--version");
        assertThat(r.code()).as(r.output()).isZero();
        assertThat(r.output()).startsWith("openjdk-25-arm64: -jar ");
    }

    @Test
    void javaOnPathWhenItIs25() throws IOException {
        Path home = fakeJava("elsewhere", "26");
        Files.move(home, dir.resolve("elsewhere"));
        Repo.Result r = launch(Map.of("PATH", dir.resolve("elsewhere/bin") + ":/usr/bin:/bin"), "--version");
        assertThat(r.code()).as(r.output()).isZero();
        assertThat(r.output()).startsWith("elsewhere: -jar ");
    }

    @Test
    void noJava25IsAClearError() throws IOException {
        Path home = fakeJava("java-17", "17.0.2");
        Files.move(home, dir.resolve("java-17"));
        Repo.Result r = launch(Map.of("PATH", dir.resolve("java-17/bin") + ":/usr/bin:/bin"), "--version");
        assertThat(r.code()).isEqualTo(2);
        assertThat(r.output()).contains("no Java 25 runtime found", "(Java 17)", "openjdk-25-jre-headless",
                "Temurin 25", "JAVA_HOME");
    }
}
