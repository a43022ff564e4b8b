package io.rkllm.server.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * packaging/bin/prepare-cds-archive, which the package's postinst and scripts/install.sh run: the
 * launcher's {@code cds-archive} as the service user, in its state directory, with the unit's JVM
 * options or those of /etc/default/rkllm-server, and never a failed installation. A stand-in launcher
 * records how it was called. Needs root (runuser).
 */
class PrepareCdsArchiveTest {
    @TempDir
    Path dir;

    private Path state;
    private Path unit;
    private Path defaults;
    private Path calls;

    @BeforeEach
    void setUp() throws IOException {
        Assumptions.assumeTrue("root".equals(System.getProperty("user.name")), "runuser needs root");
        Assumptions.assumeTrue(Repo.onPath("runuser"), "no runuser here");
        state = Files.createDirectories(dir.resolve("state"));
        unit = dir.resolve("rkllm-server.service");
        defaults = dir.resolve("default-rkllm-server");
        calls = dir.resolve("calls.txt");
        Files.writeString(unit, """
                [Service]
                Environment=HOME=/var/lib/rkllm-server
                Environment="RKLLM_JAVA_OPTS=-XX:+UseSerialGC -XX:SharedArchiveFile=/var/lib/rkllm-server/a.jsa -XX:+AutoCreateSharedArchive"
                ExecStart=/usr/bin/rkllm-server serve
                """);
    }

    private Path launcher(int exitCode) throws IOException {
        Path launcher = dir.resolve("launcher-" + exitCode);
        Files.writeString(launcher, """
                #!/bin/sh
                { echo "args=$*"; echo "opts=$RKLLM_JAVA_OPTS"; echo "home=$HOME"; echo "scale=$RKLLM_SIM_TIME_SCALE"
                  echo "java_home=${JAVA_HOME:-}"; echo "pwd=$(pwd)"; echo "user=$(id -un)"; } > %s
                exit %d
                """.formatted(calls, exitCode));
        Files.setPosixFilePermissions(launcher, PosixFilePermissions.fromString("rwxr-xr-x"));
        return launcher;
    }

    private Repo.Result prepare(Path launcher) {
        return Repo.run(List.of("sh", Repo.file("packaging/bin/prepare-cds-archive").toString(), unit.toString(),
                launcher.toString()), Map.of("RKLLM_SERVICE_USER", "root", "RKLLM_STATE_DIR", state.toString(),
                "RKLLM_DEFAULTS_FILE", defaults.toString()));
    }

    @Test
    void runsTheCommandAsTheServiceUserWithTheUnitsOptions() throws IOException {
        Repo.Result r = prepare(launcher(0));

        assertThat(r.code()).isZero();
        assertThat(r.output()).contains("class-data-sharing archive prepared in " + state);
        assertThat(Files.readAllLines(calls)).containsExactly("args=cds-archive",
                "opts=-XX:+UseSerialGC -XX:SharedArchiveFile=/var/lib/rkllm-server/a.jsa -XX:+AutoCreateSharedArchive",
                "home=" + state, "scale=0", "java_home=", "pwd=" + state, "user=root");
    }

    @Test
    void theAdministratorsDefaultsWin() throws IOException {
        Files.writeString(defaults, """
                # options of this board
                RKLLM_JAVA_OPTS="-Xmx128m -XX:SharedArchiveFile=/var/lib/rkllm-server/b.jsa"
                JAVA_HOME=/opt/jdk-25
                """);

        Repo.Result r = prepare(launcher(0));

        assertThat(r.code()).isZero();
        assertThat(Files.readAllLines(calls)).contains("opts=-Xmx128m -XX:SharedArchiveFile=/var/lib/rkllm-server/b.jsa",
                "java_home=/opt/jdk-25");
    }

    @Test
    void nothingToDoWithoutAnArchiveInTheOptions() throws IOException {
        Files.writeString(defaults, "RKLLM_JAVA_OPTS=-Xmx128m\n");

        Repo.Result r = prepare(launcher(0));

        assertThat(r.code()).isZero();
        assertThat(r.output()).contains("no class-data-sharing archive in RKLLM_JAVA_OPTS: none prepared");
        assertThat(calls).doesNotExist();
    }

    @Test
    void aFailingCommandNeverFailsTheInstallation() throws IOException {
        Repo.Result r = prepare(launcher(3));

        assertThat(r.code()).isZero();
        assertThat(r.output()).contains("not prepared").contains("the service makes it at its first stop");
        assertThat(calls).exists();
    }
}
