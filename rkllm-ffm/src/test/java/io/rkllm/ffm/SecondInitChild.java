package io.rkllm.ffm;

import java.nio.file.Path;
import java.util.Map;

/**
 * Run in a child JVM by {@link Runtime13FaultsTest}: loads a model, then a second one the simulated
 * NPU memory budget cannot hold. Runtime 1.3.0 dies inside that rkllm_init (SIGSEGV), so "second
 * loaded" or "second refused" is never printed on ABI 1.3.
 */
public final class SecondInitChild {
    private SecondInitChild() {
    }

    public static void main(String[] args) {
        Abi abi = Abi.parseChoice(args[0]).orElseThrow();
        Path dir = Path.of(args[1]);
        RkllmRuntime runtime = Sim.runtime(abi);
        Path file = Sim.model(dir, "big", Map.of("memory_mb", "2000", "npu_budget_mb", "3000"));
        Model first = runtime.load(Sim.params(runtime, file, 512));
        System.out.println("first loaded");
        System.out.flush();
        try (Model second = runtime.load(Sim.params(runtime, file, 512))) {
            System.out.println("second loaded");
        } catch (RkllmException e) {
            System.out.println("second refused: " + e.getMessage());
        }
        first.close();
    }
}
