package io.rkllm.server.backend.rkllm;

import io.rkllm.server.engine.contract.DoctorContext;
import io.rkllm.server.engine.contract.DoctorLine;
import io.rkllm.server.engine.contract.EngineSetup;
import io.rkllm.server.models.ModelDescriptor;
import java.util.ArrayList;
import java.util.List;

/**
 * The RKLLM runtime's lines of {@code doctor}: its library, the CPU against that library, the RKNPU driver, the NPU's
 * device nodes and clocks, the RKNN runtime for image encoders, and runtime 1.3.0's fault with thinking models.
 *
 * <p>The driver and the devices are the board's, but here they are what this engine runs on: llama.cpp runs on the
 * CPU unless it is a build with the RKNPU backend, whose own devices it lists in its line. So they block only when
 * this engine's models are to be served ({@link DoctorLine#onlyForItsModels()}), and never with {@code --simulate},
 * whose runtime needs no NPU. The CPU line is here too, not among the board's checks: what it judges (NEON, SVE code
 * that could die with SIGILL) is this runtime library's need; llama.cpp's line says what its build uses of the CPU.
 */
final class RkllmDoctor {
    private RkllmDoctor() {
    }

    static List<DoctorLine> lines(EngineSetup setup, List<ModelDescriptor> models, DoctorContext context) {
        boolean simulated = setup.simulation().isPresent();
        RuntimeCheck runtime = RuntimeCheck.of(setup.config().runtime(), setup.simulation(), setup.environment());
        List<DoctorLine> lines = new ArrayList<>();
        lines.add(runtime.line().onlyForItsModels());
        lines.add(CpuCheck.check(context.machine().resolve("/proc/cpuinfo"), runtime.file(), runtime.version())
                .onlyForItsModels());
        NpuChecks npu = new NpuChecks(context.machine(), new Accounts(context.machine().etc()));
        List<DoctorLine> hardware = new ArrayList<>();
        hardware.add(npu.driver());
        hardware.addAll(npu.devices(context.serviceUser(), System.getProperty("user.name")));
        hardware.stream().map(l -> simulated ? l.notBlocking("not needed with --simulate") : l.onlyForItsModels())
                .forEach(lines::add);
        lines.addAll(npu.clocks());
        lines.add(RknnCheck.of(RkllmLibraries.rknn(setup.config().runtime(), setup.simulation(), setup.environment()),
                simulated, models.stream().filter(ModelDescriptor::seesImages).map(ModelDescriptor::id).toList()));
        ThinkingCheck.on130(runtime.version(), models, context.templated(), setup.config().runtime().thinkingFlag())
                .map(l -> simulated ? l.notBlocking("simulated runtime") : l).ifPresent(lines::add);
        return lines;
    }
}
