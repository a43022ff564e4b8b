package io.rkllm.server.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code --simulate} copies the simulated runtime and models into a temporary directory; it is gone after a stop. */
class SimulationCleanupTest {
    @TempDir
    Path dir;

    private List<Path> simulations(Path tmp) throws Exception {
        try (Stream<Path> s = Files.list(tmp)) {
            return s.filter(p -> p.getFileName().toString().startsWith("rkllm-simulate-")).toList();
        }
    }

    @Test
    void sigtermLeavesNoTemporaryCopyBehind() throws Exception {
        Path tmp = Files.createDirectories(dir.resolve("tmp"));
        ChildServer server = ChildServer.start(dir, System.getProperty("java.class.path"), Map.of(),
                List.of("-Djava.io.tmpdir=" + tmp), "--logging.access_log=false");
        try {
            server.awaitPort();
            assertThat(simulations(tmp)).hasSize(1);
            assertThat(simulations(tmp).getFirst().resolve("models")).isDirectory();

            server.process().destroy(); // SIGTERM
            assertThat(server.process().waitFor(60, TimeUnit.SECONDS)).isTrue();
        } finally {
            server.destroyIfAlive();
        }
        assertThat(server.process().exitValue()).isZero();
        assertThat(simulations(tmp)).isEmpty();
    }
}
