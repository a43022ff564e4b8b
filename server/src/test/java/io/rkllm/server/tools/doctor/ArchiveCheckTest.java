package io.rkllm.server.tools.doctor;

import static org.assertj.core.api.Assertions.assertThat;

import io.rkllm.server.engine.contract.SystemRoots;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Instant;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The doctor's line about the installed service's class-data-sharing archive, on a fake machine. */
class ArchiveCheckTest {
    @TempDir
    Path machine;

    private Path jar;

    private Optional<Check> check() {
        return new ArchiveCheck(SystemRoots.under(machine)).check(Optional.of(jar));
    }

    private void unit(String where, String options) throws IOException {
        Path unit = machine.resolve(where.substring(1));
        Files.createDirectories(unit.getParent());
        Files.writeString(unit, """
                [Service]
                Environment=HOME=/var/lib/rkllm-server
                Environment="RKLLM_JAVA_OPTS=%s"
                ExecStart=/usr/bin/rkllm-server serve --config /etc/rkllm-server/rkllm-server.yaml
                """.formatted(options));
    }

    private Path archive(String path, Instant modified) throws IOException {
        Path file = machine.resolve(path.substring(1));
        Files.createDirectories(file.getParent());
        Files.writeString(file, "archive");
        Files.setLastModifiedTime(file, FileTime.from(modified));
        return file;
    }

    private void installJar(Instant modified) throws IOException {
        jar = machine.resolve("usr/share/rkllm-server/rkllm-server.jar");
        Files.createDirectories(jar.getParent());
        Files.writeString(jar, "jar");
        Files.setLastModifiedTime(jar, FileTime.from(modified));
    }

    @Test
    void noServiceNoLine() throws IOException {
        installJar(Instant.parse("2026-11-01T00:00:00Z"));

        assertThat(check()).isEmpty();
    }

    @Test
    void anArchiveMadeAfterTheJarIsFine() throws IOException {
        installJar(Instant.parse("2026-11-01T00:00:00Z"));
        unit("/usr/lib/systemd/system/rkllm-server.service",
                "-XX:+UseSerialGC -XX:SharedArchiveFile=/var/lib/rkllm-server/rkllm-server.jsa -XX:+AutoCreateSharedArchive");
        archive("/var/lib/rkllm-server/rkllm-server.jsa", Instant.parse("2026-11-01T00:01:00Z"));

        Check c = check().orElseThrow();

        assertThat(c.status()).isEqualTo(Check.Status.OK);
        assertThat(c.message()).isEqualTo("/var/lib/rkllm-server/rkllm-server.jsa is there, made after the jar:"
                + " the service starts in about half a second");
    }

    @Test
    void aMissingArchiveSaysHowToMakeIt() throws IOException {
        installJar(Instant.parse("2026-11-01T00:00:00Z"));
        unit("/usr/lib/systemd/system/rkllm-server.service", "-XX:SharedArchiveFile=/var/lib/rkllm-server/rkllm-server.jsa");

        Check c = check().orElseThrow();

        assertThat(c.status()).isEqualTo(Check.Status.WARN);
        assertThat(c.message()).startsWith("no class-data-sharing archive /var/lib/rkllm-server/rkllm-server.jsa yet");
        assertThat(c.fix()).contains("sudo " + jar.resolveSibling("prepare-cds-archive")
                + " /usr/lib/systemd/system/rkllm-server.service /usr/bin/rkllm-server");
    }

    @Test
    void anArchiveOlderThanTheJarIsStale() throws IOException {
        installJar(Instant.parse("2026-11-02T00:00:00Z"));
        unit("/usr/lib/systemd/system/rkllm-server.service", "-XX:SharedArchiveFile=/var/lib/rkllm-server/rkllm-server.jsa");
        archive("/var/lib/rkllm-server/rkllm-server.jsa", Instant.parse("2026-11-01T00:00:00Z"));

        Check c = check().orElseThrow();

        assertThat(c.status()).isEqualTo(Check.Status.WARN);
        assertThat(c.message()).contains("is older than " + jar).contains("makes a new one when it stops");
    }

    @Test
    void theInstallScriptsUnitAndTheAdministratorsDefaultsWin() throws IOException {
        installJar(Instant.parse("2026-11-01T00:00:00Z"));
        unit("/usr/lib/systemd/system/rkllm-server.service", "-XX:SharedArchiveFile=/var/lib/rkllm-server/a.jsa");
        unit("/etc/systemd/system/rkllm-server.service", "-XX:SharedArchiveFile=/var/lib/rkllm-server/b.jsa");
        Files.createDirectories(machine.resolve("etc/default"));
        Files.writeString(machine.resolve("etc/default/rkllm-server"),
                "# mine\\nRKLLM_JAVA_OPTS=\"-Xmx200m -XX:SharedArchiveFile=/srv/c.jsa\"\\n".translateEscapes());
        archive("/srv/c.jsa", Instant.parse("2026-11-01T00:01:00Z"));

        Check c = check().orElseThrow();

        assertThat(c.status()).isEqualTo(Check.Status.OK);
        assertThat(c.message()).startsWith("/srv/c.jsa is there");
    }

    @Test
    void optionsWithoutAnArchiveAreOnlyNoted() throws IOException {
        installJar(Instant.parse("2026-11-01T00:00:00Z"));
        unit("/lib/systemd/system/rkllm-server.service", "-XX:+UseSerialGC -Xmx256m");

        Check c = check().orElseThrow();

        assertThat(c.status()).isEqualTo(Check.Status.INFO);
        assertThat(c.message()).contains("name no class-data-sharing archive");
    }
}
