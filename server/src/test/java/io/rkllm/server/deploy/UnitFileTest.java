package io.rkllm.server.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** packaging/systemd/rkllm-server.service: its settings, the JVM accepting its flags, systemd-analyze verify. */
class UnitFileTest {
    static final Path UNIT = Repo.file("packaging/systemd/rkllm-server.service");

    @TempDir
    Path dir;

    /** Every key of the [Service] section with its values (a key may repeat). */
    static Map<String, List<String>> section(String name) {
        Map<String, List<String>> keys = new LinkedHashMap<>();
        String current = "";
        for (String line : Repo.lines(UNIT)) {
            String l = line.strip();
            if (l.startsWith("[")) {
                current = l;
            } else if (current.equals("[" + name + "]") && !l.isEmpty() && !l.startsWith("#")) {
                int eq = l.indexOf('=');
                keys.computeIfAbsent(l.substring(0, eq), k -> new ArrayList<>()).add(l.substring(eq + 1));
            }
        }
        return keys;
    }

    static String one(Map<String, List<String>> keys, String key) {
        assertThat(keys.get(key)).as(key).hasSize(1);
        return keys.get(key).getFirst();
    }

    /** The JVM options the unit passes through RKLLM_JAVA_OPTS. */
    static List<String> javaOptions() {
        for (String env : section("Service").get("Environment")) {
            String e = env.startsWith("\"") ? env.substring(1, env.length() - 1) : env;
            if (e.startsWith("RKLLM_JAVA_OPTS=")) {
                return Arrays.asList(e.substring("RKLLM_JAVA_OPTS=".length()).split(" +"));
            }
        }
        throw new AssertionError("no RKLLM_JAVA_OPTS in " + UNIT);
    }

    @Test
    void runsTheServiceSandboxed() {
        Map<String, List<String>> s = section("Service");
        assertThat(one(s, "User")).isEqualTo("rkllm");
        assertThat(one(s, "ExecStart")).isEqualTo("/usr/bin/rkllm-server serve --config /etc/rkllm-server/rkllm-server.yaml");
        assertThat(one(s, "Restart")).isEqualTo("on-failure");
        assertThat(one(s, "RestartPreventExitStatus")).isEqualTo("2");
        assertThat(Integer.parseInt(one(s, "TimeoutStopSec").replace("s", ""))).isGreaterThanOrEqualTo(60);
        assertThat(Integer.parseInt(one(s, "LimitNOFILE"))).isGreaterThanOrEqualTo(4096);
        assertThat(one(s, "ProtectSystem")).isEqualTo("strict");
        assertThat(one(s, "ProtectHome")).isEqualTo("yes");
        assertThat(one(s, "PrivateTmp")).isEqualTo("yes");
        assertThat(one(s, "NoNewPrivileges")).isEqualTo("yes");
        assertThat(one(s, "DevicePolicy")).isEqualTo("closed");
        assertThat(s.get("DeviceAllow")).contains("char-drm rw", "/dev/dri/renderD129 rw", "/dev/rknpu rw");
        assertThat(one(s, "ReadWritePaths")).isEqualTo("/var/lib/rkllm-server");
        assertThat(one(s, "StandardOutput")).isEqualTo("journal");
        assertThat(s).doesNotContainKey("MemoryDenyWriteExecute");
        assertThat(one(section("Install"), "WantedBy")).isEqualTo("multi-user.target");
    }

    @Test
    void smallFootprintJvmFlags() {
        assertThat(javaOptions()).contains("-XX:+UseSerialGC", "-Xms6m", "-Xmx256m", "-XX:TieredStopAtLevel=1",
                "-XX:CompileThresholdScaling=0.15", "-XX:TrimNativeHeapInterval=2000", "-XX:+AutoCreateSharedArchive",
                "-XX:SharedArchiveFile=/var/lib/rkllm-server/rkllm-server.jsa");
    }

    @Test
    void theJvmAcceptsTheFlags() {
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        for (String option : javaOptions()) {
            command.add(option.replace("/var/lib/rkllm-server/", dir + "/"));
        }
        command.add("-version");
        Repo.Result r = Repo.run(command, Map.of());
        assertThat(r.code()).as(r.output()).isZero();
        assertThat(r.output()).doesNotContainIgnoringCase("warning").doesNotContainIgnoringCase("unrecognized");
    }

    /** systemd-analyze verify in a copy of this machine's unit directory, with the launcher in place. */
    private Repo.Result verify(Path unitFile, String execStart) throws IOException {
        Assumptions.assumeTrue(Repo.onPath("systemd-analyze"), "systemd-analyze is not installed");
        Path system = Path.of("/usr/lib/systemd/system");
        if (!Files.exists(system.resolve("sysinit.target"))) {
            system = Path.of("/lib/systemd/system");
        }
        Assumptions.assumeTrue(Files.exists(system.resolve("sysinit.target")), "no systemd unit directory here");
        Path root = dir.resolve("root");
        Files.createDirectories(root.resolve("usr/lib/systemd"));
        Repo.Result copy = Repo.run("cp", "-a", system.toString(), root.resolve("usr/lib/systemd/system").toString());
        assertThat(copy.code()).as(copy.output()).isZero();
        // masked units are links to /dev/null: not needed, and JUnit warns when it cleans them up
        Repo.run("find", root.resolve("usr/lib/systemd/system").toString(), "-lname", "/*", "-delete");
        Path launcher = root.resolve(execStart.substring(1));
        Files.createDirectories(launcher.getParent());
        Files.copy(Repo.file("packaging/bin/rkllm-server"), launcher);
        launcher.toFile().setExecutable(true, false);
        Path target = root.resolve("etc/systemd/system/rkllm-server.service");
        Files.createDirectories(target.getParent());
        Files.copy(unitFile, target);
        return Repo.run("systemd-analyze", "verify", "--man=no", "--root=" + root, target.toString());
    }

    @Test
    void systemdAnalyzeVerifyPasses() throws IOException {
        Repo.Result r = verify(UNIT, "/usr/bin/rkllm-server");
        assertThat(r.code()).as(r.output()).isZero();
        assertThat(r.output()).as("systemd-analyze verify says nothing about a good unit").isBlank();
    }

    @Test
    void systemdAnalyzeVerifyCatchesMistakes() throws IOException {
        Path bad = dir.resolve("bad.service");
        Files.writeString(bad, Files.readString(UNIT).replace("TimeoutStopSec=60s", "TimeoutStopSecs=60s"));
        Repo.Result r = verify(bad, "/usr/bin/rkllm-server");
        assertThat(r.output()).contains("TimeoutStopSecs");
    }

    @Test
    void systemdAnalyzeVerifyPassesForTheScriptInstall() throws IOException {
        Path root = dir.resolve("installed");
        Path jar = dir.resolve("x.jar");
        Files.writeString(jar, "x");
        Repo.Result install = Repo.run("bash", Repo.file("scripts/install.sh").toString(), "--root", root.toString(),
                "--jar", jar.toString(), "--force");
        assertThat(install.code()).as(install.output()).isZero();
        Repo.Result r = verify(root.resolve("etc/systemd/system/rkllm-server.service"), "/usr/local/bin/rkllm-server");
        assertThat(r.code()).as(r.output()).isZero();
        assertThat(r.output()).isBlank();
    }
}
