package io.rkllm.server.tools.doctor;

import static org.assertj.core.api.Assertions.assertThat;

import io.rkllm.ffm.Abi;
import io.rkllm.ffm.SimulatedRuntime;
import io.rkllm.server.app.Simulation;
import io.rkllm.server.engine.contract.SystemRoots;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The doctor against a fake machine: {@code /sys}, {@code /dev} and {@code /etc} under a temporary
 * directory, the simulated runtime as the "installed" library, simulated model files.
 */
class DoctorTest {
    @TempDir
    Path dir;
    Path machine;
    Path models;
    Path library;
    int freePort;

    @BeforeEach
    void setUp() throws IOException {
        machine = Files.createDirectories(dir.resolve("machine"));
        models = Files.createDirectories(dir.resolve("models"));
        Path model = Files.createDirectories(models.resolve("Qwen3-1.7B-RK3588-w8a8"));
        Files.writeString(model.resolve("qwen3-1.7b_w8a8_rk3588.rkllm"), "#rkllm-sim 1\nname: q\n");
        Files.writeString(model.resolve("model.yaml"), "context_length: 8192\n");
        library = SimulatedRuntime.extract(Abi.V1_2, dir.resolve("lib")).orElseThrow();
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            freePort = s.getLocalPort();
        }
    }

    /** A board: driver {@code version}, the NPU render node with {@code mode}, user rkllm in {@code groups}. */
    private void board(String version, String mode, boolean inRenderGroup) throws IOException {
        Path rknpu = Files.createDirectories(machine.resolve("sys/kernel/debug/rknpu"));
        Files.writeString(rknpu.resolve("version"), "RKNPU driver: v" + version + "\n");
        Path drm = Files.createDirectories(machine.resolve("sys/class/drm/renderD129/device"));
        Files.writeString(drm.resolve("uevent"), "DRIVER=RKNPU\nOF_NAME=npu\nOF_COMPATIBLE_0=rockchip,rk3588-rknpu\n");
        Path gpu = Files.createDirectories(machine.resolve("sys/class/drm/renderD128/device"));
        Files.writeString(gpu.resolve("uevent"), "DRIVER=panthor\n");
        Path devfreq = Files.createDirectories(machine.resolve("sys/class/devfreq/fdab0000.npu"));
        Files.writeString(devfreq.resolve("governor"), "rknpu_ondemand\n");
        Files.writeString(devfreq.resolve("cur_freq"), "1000000000\n");
        Files.writeString(devfreq.resolve("max_freq"), "1000000000\n");
        Path node = Files.createDirectories(machine.resolve("dev/dri")).resolve("renderD129");
        Files.writeString(node, "");
        Files.createFile(machine.resolve("dev/dri/renderD128"));
        Files.setPosixFilePermissions(node, PosixFilePermissions.fromString(mode));
        int gid = (Integer) Files.getAttribute(node, "unix:gid");
        Path etc = Files.createDirectories(machine.resolve("etc"));
        Files.writeString(etc.resolve("passwd"), "root:x:0:0:root:/root:/bin/bash\n"
                + "rkllm:x:990:990:rkllm-server:/var/lib/rkllm-server:/usr/sbin/nologin\n");
        Files.writeString(etc.resolve("group"), (gid == 0 ? "" : "root:x:0:\n") + "render:x:" + gid + ":"
                + (inRenderGroup ? "rkllm" : "") + "\nvideo:x:44:\nrkllm:x:990:\n");
    }

    private record Report(int code, String text, List<Check> checks) {
        Check only(String topic) {
            List<Check> found = checks.stream().filter(c -> c.topic().equals(topic)).toList();
            assertThat(found).as("checks of " + topic).hasSize(1);
            return found.getFirst();
        }
    }

    private Report doctor(Map<String, String> flags) {
        return doctor(flags, Map.of());
    }

    private Report doctor(Map<String, String> flags, Map<String, String> options) {
        Map<String, String> all = new LinkedHashMap<>();
        all.put("server.port", Integer.toString(freePort));
        all.putAll(flags);
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        PrintStream out = new PrintStream(bytes, true, StandardCharsets.UTF_8);
        Doctor doctor = new Doctor(SystemRoots.under(machine), Map.of(), dir,
                () -> new Simulation(dir.resolve("sim")), out);
        Doctor.Request request = new Doctor.Request(Optional.empty(), false, all, options);
        int code = doctor.run(request);
        List<Check> checks = doctor.checks(request);
        return new Report(code, bytes.toString(StandardCharsets.UTF_8), checks);
    }

    private Map<String, String> installed() {
        return Map.of("runtime.library", library.toString(), "models.dir", models.toString());
    }

    @Test
    void aHealthyBoardPasses() throws IOException {
        board("0.9.8", "rw-rw----", true);
        Report r = doctor(installed());

        assertThat(r.code()).as(r.text()).isEqualTo(Doctor.OK);
        assertThat(r.only("java").status()).isEqualTo(Check.Status.OK);
        assertThat(r.only("config").status()).isEqualTo(Check.Status.OK);
        assertThat(r.only("library").message()).contains(library.toString(), "runtime 1.2.3", "ABI 1.2");
        assertThat(r.only("driver").message()).contains("0.9.8");
        assertThat(r.only("device").message()).contains("renderD129", "rw-rw----", "service user rkllm")
                .contains("can open it").doesNotContain("renderD128");
        assertThat(r.only("model").message()).contains("qwen3-1.7b-rk3588-w8a8", "context 8192");
        assertThat(r.only("clock").message()).contains("rknpu_ondemand", "1000 MHz");
        assertThat(r.only("port").message()).contains(freePort + " is free");
        assertThat(r.text()).contains("[ok  ] driver", "Nothing blocks serving").doesNotContain("fix:");
        assertThat(r.only("rknn").message()).contains("only vision models need it");
    }

    @Test
    void aMachineWithOnlyGgufModelsNeedsNoRkllmRuntimeAndDoctorNamesLlamaCpp() throws Exception {
        Path gguf = Files.createDirectories(dir.resolve("gguf-models").resolve("tiny"));
        io.rkllm.llama.gguf.TinyLlama.write(gguf.resolve("tiny.gguf"), io.rkllm.llama.gguf.TinyLlama.Options.chat());
        Report r = doctor(Map.of("runtime.library", dir.resolve("no-librkllmrt.so").toString(),
                "models.dir", gguf.getParent().toString()));

        assertThat(r.code()).as(r.text()).isEqualTo(Doctor.OK);
        assertThat(r.only("library").status()).isNotEqualTo(Check.Status.FAIL);
        assertThat(r.only("library").status()).isEqualTo(Check.Status.INFO);
        assertThat(r.only("library").message()).contains("the models are .gguf models, which the llama.cpp library"
                + " serves without it");
        assertThat(r.only("driver").message()).contains(".gguf models");
        assertThat(r.only("engines").message()).isEqualTo("RKLLM runtime: not available; llama.cpp library: .gguf"
                + " models");
        Check llama = r.only("llama");
        assertThat(llama.status()).isEqualTo(Check.Status.OK);
        // the bundled library: where it is, its build and API generation, its devices
        assertThat(llama.message()).contains("libllama.v0.5.0.so", "the jar's llama.cpp v0.5.0", "devices", "CPU");
        assertThat(r.text()).contains("tiny");
    }

    @Test
    void simulateWinsOverTheModelsDirectoryOfTheInstalledConfiguration() throws IOException {
        // the package's /etc configuration names /var/lib/rkllm-server/models, which holds no model here
        Path config = Files.writeString(dir.resolve("rkllm-server.yaml"), "models:\n  dir: "
                + dir.resolve("no-models") + "\n");
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        Doctor doctor = new Doctor(SystemRoots.under(machine), Map.of(), dir, () -> new Simulation(dir.resolve("sim")),
                new PrintStream(bytes, true, StandardCharsets.UTF_8));
        Doctor.Request request = new Doctor.Request(Optional.of(config), false,
                Map.of("runtime.simulate", "true", "server.port", Integer.toString(freePort)), Map.of());

        assertThat(doctor.run(request)).as(bytes.toString(StandardCharsets.UTF_8)).isEqualTo(Doctor.OK);
        assertThat(doctor.checks(request).stream().filter(c -> c.topic().equals("model")).map(Check::message))
                .anySatisfy(m -> assertThat(m).contains("qwen3-1.7b-sim"));
    }

    @Test
    void simulatedNeedsNoBoard() {
        Report r = doctor(Map.of("runtime.simulate", "true"));

        assertThat(r.code()).as(r.text()).isEqualTo(Doctor.OK);
        assertThat(r.only("library").message()).contains("simulated runtime", "ABI 1.3")
                .doesNotContain("unknown file hash");
        assertThat(r.only("driver").status()).isEqualTo(Check.Status.INFO);
        assertThat(r.only("driver").message()).contains("not needed with --simulate");
        assertThat(r.only("device").status()).isEqualTo(Check.Status.INFO);
        assertThat(r.checks().stream().filter(c -> c.topic().equals("model")).map(Check::message))
                .anySatisfy(m -> assertThat(m).contains("qwen3-1.7b-sim", "context 4096"))
                .anySatisfy(m -> assertThat(m).contains("qwen3-vl-2b-sim", "vision (qwen3-vl-2b-sim_vision_rk3588.rknn)"));
        assertThat(r.only("rknn").status()).isEqualTo(Check.Status.OK);
        assertThat(r.only("rknn").message()).contains("simulated RKNN runtime", "librknnrt.so", "qwen3-vl-2b-sim");
    }

    @Test
    void aMissingLibraryBlocksWithTheFix() throws IOException {
        board("0.9.8", "rw-rw----", true);
        Report r = doctor(Map.of("runtime.library", dir.resolve("nowhere/librkllmrt.so").toString(),
                "models.dir", models.toString()));

        assertThat(r.code()).isEqualTo(Doctor.BLOCKED);
        Check library = r.only("library");
        assertThat(library.status()).isEqualTo(Check.Status.FAIL);
        assertThat(library.message()).contains("does not exist");
        assertThat(library.fix().orElseThrow()).contains("airockchip/rknn-llm", "/usr/lib/");
        assertThat(r.text()).contains("[FAIL] library", "fix: install librkllmrt.so", "1 problem blocks serving");
    }

    @Test
    void anUnidentifiableLibrarySaysHowToForceTheAbi() throws IOException {
        board("0.9.8", "rw-rw----", true);
        Path odd = dir.resolve("odd/librkllmrt.so");
        Files.createDirectories(odd.getParent());
        Files.writeString(odd, "not a runtime");
        Report r = doctor(Map.of("runtime.library", odd.toString(), "models.dir", models.toString()));

        assertThat(r.code()).isEqualTo(Doctor.BLOCKED);
        assertThat(r.only("library").message()).contains("cannot tell which RKLLM runtime");
        assertThat(r.only("library").fix().orElseThrow()).contains("--abi 1.2", "--abi 1.3");
    }

    @Test
    void anOldDriverBlocks() throws IOException {
        board("0.9.6", "rw-rw----", true);
        Report r = doctor(installed());

        assertThat(r.code()).isEqualTo(Doctor.BLOCKED);
        Check driver = r.only("driver");
        assertThat(driver.status()).isEqualTo(Check.Status.FAIL);
        assertThat(driver.message()).contains("0.9.6", "older than 0.9.8");
        assertThat(driver.fix().orElseThrow()).contains("kernel");
    }

    @Test
    void noDriverAndNoDeviceBlock() {
        Report r = doctor(installed());

        assertThat(r.code()).isEqualTo(Doctor.BLOCKED);
        assertThat(r.only("driver").status()).isEqualTo(Check.Status.FAIL);
        assertThat(r.only("driver").fix().orElseThrow()).contains("vendor kernel");
        assertThat(r.only("device").status()).isEqualTo(Check.Status.FAIL);
    }

    @Test
    void aServiceUserOutsideTheDeviceGroupBlocks() throws IOException {
        board("0.9.8", "rw-rw----", false);
        Report r = doctor(installed());

        assertThat(r.code()).isEqualTo(Doctor.BLOCKED);
        Check device = r.only("device");
        assertThat(device.status()).isEqualTo(Check.Status.FAIL);
        assertThat(device.message()).contains("service user rkllm", "cannot open it");
        assertThat(device.fix().orElseThrow()).contains("usermod -aG render rkllm", "systemctl restart");
    }

    @Test
    void anotherServiceUserCanBeChecked() throws IOException {
        board("0.9.8", "rw-rw-rw-", false);
        Report r = doctor(installed(), Map.of("user", "nobody-here"));

        assertThat(r.code()).as(r.text()).isEqualTo(Doctor.OK);
        assertThat(r.only("device").message()).contains("no 'nobody-here' service user here");
    }

    @Test
    void anUnreadableDriverVersionIsAWarningWithTheCommand() throws IOException {
        board("0.9.8", "rw-rw----", true);
        Path debug = machine.resolve("sys/kernel/debug");
        Files.setPosixFilePermissions(debug, PosixFilePermissions.fromString("---------"));
        try {
            org.junit.jupiter.api.Assumptions.assumeFalse(Files.isReadable(debug.resolve("rknpu/version")),
                    "running as root: permissions cannot make the file unreadable");
            Report r = doctor(installed());
            assertThat(r.only("driver").status()).isEqualTo(Check.Status.WARN);
            assertThat(r.only("driver").fix().orElseThrow()).contains("sudo");
        } finally {
            Files.setPosixFilePermissions(debug, PosixFilePermissions.fromString("rwx------"));
        }
    }

    @Test
    void noModelsYetIsAWarningThatSaysHowToGetOne() throws IOException {
        board("0.9.8", "rw-rw----", true);
        Path empty = Files.createDirectories(dir.resolve("empty"));
        Report r = doctor(Map.of("runtime.library", library.toString(), "models.dir", empty.toString()));

        assertThat(r.code()).as(r.text()).isEqualTo(Doctor.OK);
        assertThat(r.only("model").status()).isEqualTo(Check.Status.WARN);
        assertThat(r.only("model").message()).isEqualTo("no model in " + empty + " yet");
        assertThat(r.only("model").fix()).hasValueSatisfying(f -> assertThat(f)
                .startsWith("download one: rkllm-server pull OWNER/REPO[:QUANT]"));

        Report missing = doctor(Map.of("runtime.library", library.toString(), "models.dir",
                dir.resolve("not-yet").toString()));
        assertThat(missing.code()).as(missing.text()).isEqualTo(Doctor.OK);
        assertThat(missing.only("model").message()).startsWith("no model yet: ").contains("does not exist");
        assertThat(missing.only("model").fix()).hasValueSatisfying(f -> assertThat(f)
                .contains("(the pull creates " + dir.resolve("not-yet") + ")"));
    }

    @Test
    void aBadConfigFileBlocksAndNamesTheKey() throws IOException {
        board("0.9.8", "rw-rw----", true);
        Path config = dir.resolve("bad.yaml");
        Files.writeString(config, "server:\n  prot: 8080\n");
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        Doctor doctor = new Doctor(SystemRoots.under(machine), Map.of(), dir, () -> new Simulation(dir.resolve("s")),
                new PrintStream(bytes, true, StandardCharsets.UTF_8));
        Doctor.Request request = new Doctor.Request(Optional.of(config), true, installed(), Map.of());

        assertThat(doctor.run(request)).isEqualTo(Doctor.BLOCKED);
        Check check = doctor.checks(request).stream().filter(c -> c.topic().equals("config")).findFirst().orElseThrow();
        assertThat(check.status()).isEqualTo(Check.Status.FAIL);
        assertThat(check.message()).contains("server.prot");
        assertThat(check.fix().orElseThrow()).contains("edit " + config);
    }

    @Test
    void aBusyPortBlocks() throws IOException {
        board("0.9.8", "rw-rw----", true);
        try (ServerSocket busy = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            Map<String, String> flags = new LinkedHashMap<>(installed());
            flags.put("server.port", Integer.toString(busy.getLocalPort()));
            Report r = doctor(flags);

            assertThat(r.code()).isEqualTo(Doctor.BLOCKED);
            assertThat(r.only("port").message()).contains("in use");
            assertThat(r.only("port").fix().orElseThrow()).contains("server.port");
        }
    }

    @Test
    void runtime130WithAThinkingModelNamesTheKnownGoodRelease() throws IOException {
        board("0.9.8", "rw-rw----", true);
        Files.createDirectories(machine.resolve("proc"));
        Files.writeString(machine.resolve("proc/cpuinfo"), io.rkllm.server.backend.rkllm.CpuCheckTest.RK3588);
        Path runtime13 = SimulatedRuntime.extract(Abi.V1_3, dir.resolve("lib13")).orElseThrow();
        Report r = doctor(Map.of("runtime.library", runtime13.toString(), "models.dir", models.toString()));

        assertThat(r.code()).as(r.text()).isEqualTo(Doctor.OK);
        assertThat(r.only("library").message()).contains("runtime 1.3.0");
        assertThat(r.only("cpu").message()).contains("4x Cortex-A55 + 4x Cortex-A76", "SVE no");
        Check runtime = r.only("runtime");
        assertThat(runtime.status()).isEqualTo(Check.Status.WARN);
        assertThat(runtime.message()).contains("qwen3-1.7b-rk3588-w8a8", "</think>", "chat templates");
        assertThat(runtime.fix().orElseThrow()).contains("1.2.3 is the known-good release");

        Report flag = doctor(Map.of("runtime.library", runtime13.toString(), "models.dir", models.toString(),
                "runtime.thinking_flag", "always"));
        assertThat(flag.only("runtime").message()).contains("may come back empty");
        assertThat(doctor(installed()).checks()).noneMatch(c -> c.topic().equals("runtime"));
    }

    @Test
    void anUnknownOptionIsAUsageError() {
        Report r = doctor(Map.of("runtime.simulate", "true"), Map.of("frobnicate", "1"));
        assertThat(r.code()).isEqualTo(Doctor.USAGE);
        assertThat(r.text()).contains("--frobnicate: unknown option");
    }
}
