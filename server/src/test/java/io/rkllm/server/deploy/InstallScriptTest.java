package io.rkllm.server.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** scripts/install.sh into a temporary root: install, install again (idempotent), keep edits, uninstall. */
class InstallScriptTest {
    @TempDir
    Path dir;

    private Repo.Result install(Path root, String... extra) {
        List<String> command = new ArrayList<>(List.of("bash", Repo.file("scripts/install.sh").toString(),
                "--root", root.toString(), "--jar", jar().toString()));
        command.addAll(List.of(extra));
        return Repo.run(command, java.util.Map.of());
    }

    private Path jar() {
        Path jar = dir.resolve("rkllm-server.jar");
        try {
            if (!Files.exists(jar)) {
                Files.writeString(jar, "not really a jar");
            }
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
        return jar;
    }

    private static String mode(Path p) throws IOException {
        return PosixFilePermissions.toString(Files.getPosixFilePermissions(p));
    }

    @Test
    void installsTheLayoutAgainIdempotentlyAndUninstalls() throws IOException {
        Path root = dir.resolve("root");
        Repo.Result first = install(root, "--force");
        assertThat(first.code()).as(first.output()).isZero();
        assertThat(first.output()).contains("install    " + root + "/usr/local/share/rkllm-server/rkllm-server.jar")
                .contains("skip       user rkllm").contains("skip       systemctl")
                .contains("skip       class-data-sharing archive: not the live system");

        Path jar = root.resolve("usr/local/share/rkllm-server/rkllm-server.jar");
        Path launcher = root.resolve("usr/local/bin/rkllm-server");
        Path unit = root.resolve("etc/systemd/system/rkllm-server.service");
        Path config = root.resolve("etc/rkllm-server/rkllm-server.yaml");
        Path models = root.resolve("var/lib/rkllm-server/models");
        assertThat(Files.readString(jar)).isEqualTo("not really a jar");
        assertThat(mode(jar)).isEqualTo("rw-r--r--");
        assertThat(mode(launcher)).isEqualTo("rwxr-xr-x");
        Path prepare = root.resolve("usr/local/share/rkllm-server/prepare-cds-archive");
        assertThat(mode(prepare)).isEqualTo("rwxr-xr-x");
        assertThat(Files.readString(prepare)).isEqualTo(Files.readString(Repo.file("packaging/bin/prepare-cds-archive")));
        assertThat(Files.readString(launcher)).isEqualTo(Files.readString(Repo.file("packaging/bin/rkllm-server")));
        assertThat(Files.readString(unit)).contains("ExecStart=/usr/local/bin/rkllm-server serve --config"
                + " /etc/rkllm-server/rkllm-server.yaml").doesNotContain("/usr/bin/rkllm-server");
        assertThat(Files.readString(config)).contains("\n  dir: /var/lib/rkllm-server/models\n")
                .contains("# port: 8080");
        assertThat(Files.isDirectory(models)).isTrue();
        assertThat(mode(models)).isEqualTo("rwxrwxr-x");
        assertThat(root.resolve("usr/local/share/man/man1/rkllm-server.1")).exists();

        Repo.Result again = install(root, "--force");
        assertThat(again.code()).as(again.output()).isZero();
        assertThat(again.output()).doesNotContain("install    ").contains("unchanged  " + jar)
                .contains("unchanged  " + config).contains("exists     " + models + "/");

        Files.writeString(config, "server:\n  port: 9090\n");
        Files.writeString(models.resolve("keep.txt"), "a model would be here");
        Repo.Result edited = install(root, "--force");
        assertThat(edited.code()).isZero();
        assertThat(edited.output()).contains("kept       " + config);
        assertThat(Files.readString(config)).isEqualTo("server:\n  port: 9090\n");
        assertThat(root.resolve("etc/rkllm-server/rkllm-server.yaml.default")).exists();

        Repo.Result removed = install(root, "--uninstall");
        assertThat(removed.code()).as(removed.output()).isZero();
        assertThat(removed.output()).contains("remove     " + jar).contains("kept");
        assertThat(removed.output()).as("--root creates no user, so none is kept").doesNotContain("user rkllm", "userdel");
        assertThat(jar).doesNotExist();
        assertThat(launcher).doesNotExist();
        assertThat(unit).doesNotExist();
        assertThat(root.resolve("usr/local/share/rkllm-server")).doesNotExist();
        assertThat(config).exists();
        assertThat(models.resolve("keep.txt")).exists();

        Repo.Result removedAgain = install(root, "--uninstall");
        assertThat(removedAgain.code()).isZero();
        assertThat(removedAgain.output()).doesNotContain("remove     ");
    }

    @Test
    void anotherPrefix() throws IOException {
        Path root = dir.resolve("root");
        Repo.Result r = install(root, "--force", "--prefix", "/opt/rkllm");
        assertThat(r.code()).as(r.output()).isZero();
        assertThat(root.resolve("opt/rkllm/share/rkllm-server/rkllm-server.jar")).exists();
        assertThat(Files.readString(root.resolve("etc/systemd/system/rkllm-server.service")))
                .contains("ExecStart=/opt/rkllm/bin/rkllm-server serve");
    }

    @Test
    void refusesPolitelyOffArm64() {
        String machine = Repo.run("uname", "-m").output().strip();
        Assumptions.assumeFalse(machine.equals("aarch64") || machine.equals("arm64"), "this machine is arm64");
        Path root = dir.resolve("root");
        Repo.Result r = install(root);
        assertThat(r.code()).isEqualTo(1);
        assertThat(r.output()).contains("this machine is " + machine + ", not arm64", "--force", "Nothing was changed");
        assertThat(root).doesNotExist();
    }

    @Test
    void needsAJar() {
        Repo.Result r = Repo.run("bash", Repo.file("scripts/install.sh").toString(), "--root",
                dir.resolve("root").toString(), "--force", "--jar", dir.resolve("missing.jar").toString());
        assertThat(r.code()).isEqualTo(1);
        assertThat(r.output()).contains("no server jar at", "scripts/build package");
    }
}
