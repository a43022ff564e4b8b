package io.rkllm.server.backend.echo;

import static org.assertj.core.api.Assertions.assertThat;

import io.rkllm.server.app.EngineProviders;
import io.rkllm.server.app.Simulation;
import io.rkllm.server.engine.contract.EngineProvider;
import io.rkllm.server.engine.contract.SystemRoots;
import io.rkllm.server.tools.doctor.Check;
import io.rkllm.server.tools.doctor.Doctor;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code doctor} with the echo engine added to the providers, as {@link ThirdEngineTest} adds it to the server: the
 * engines line names it with its files' ending, its own line is in the report, and on a machine whose models are all
 * echo models (no NPU, no RKLLM runtime) the RKLLM runtime's findings do not block, saying which engine serves them.
 * Nothing of the doctor was edited for it.
 */
class ThirdEngineDoctorTest {
    @TempDir
    Path dir;

    @Test
    void doctorListsTheThirdEngineAndItsLines() throws IOException {
        Path models = Files.createDirectories(dir.resolve("models").resolve("echo-chat"));
        Files.writeString(models.resolve("echo-chat.echo"), "any bytes");
        List<EngineProvider> providers = new ArrayList<>(EngineProviders.all());
        providers.add(new EchoProvider()); // the one line an engine adds to the application

        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        Doctor doctor = new Doctor(SystemRoots.under(Files.createDirectories(dir.resolve("machine"))), Map.of(), dir,
                () -> new Simulation(dir.resolve("sim")), new PrintStream(bytes, true, StandardCharsets.UTF_8),
                providers);
        Doctor.Request request = new Doctor.Request(Optional.empty(), false, Map.of("server.port", "0",
                "models.dir", models.getParent().toString(), "runtime.library",
                dir.resolve("no-librkllmrt.so").toString()), Map.of());

        int code = doctor.run(request);
        String text = bytes.toString(StandardCharsets.UTF_8);
        assertThat(code).as(text).isEqualTo(Doctor.OK);
        List<Check> checks = doctor.checks(request);
        assertThat(checks).filteredOn(c -> c.topic().equals("engines")).singleElement()
                .satisfies(c -> assertThat(c.message()).contains("RKLLM runtime: not available", "echo engine: .echo"
                        + " models"));
        assertThat(checks).filteredOn(c -> c.topic().equals(EchoProvider.NAME)).singleElement()
                .satisfies(c -> assertThat(c.message()).isEqualTo("the echo engine needs no library"));
        assertThat(checks).filteredOn(c -> c.topic().equals("library")).singleElement().satisfies(c -> {
            assertThat(c.status()).isEqualTo(Check.Status.INFO);
            assertThat(c.message()).contains("the models are .echo models, which the echo engine serves without it");
        });
        assertThat(checks).filteredOn(c -> List.of("driver", "device").contains(c.topic()))
                .isNotEmpty().allSatisfy(c -> assertThat(c.status()).isEqualTo(Check.Status.INFO));
        assertThat(checks).filteredOn(c -> c.topic().equals("model")).singleElement()
                .satisfies(c -> assertThat(c.message()).contains("echo-chat"));
    }
}
