package io.rkllm.server.engine;

import java.time.Duration;

/**
 * How the registry manages models.
 *
 * @param maxLoaded models loaded at once
 * @param maxQueued requests waiting per model (a model's {@link ModelLoad#maxQueued()} may say otherwise)
 * @param idleUnload unload a model unused this long (zero: never)
 * @param loadTimeout longest wait for a model to load, or for room to load it
 * @param eosGuard end runs that go past a special token (runtime 1.3's wrong EOS id, {@link EosWatch}): auto (on
 *                 for runtime 1.3), on or off
 * @param memoryCheck check that a model fits before loading it ({@link MemoryBudget}): auto (on for runtime 1.3),
 *                    on or off
 * @param memoryBudgetMb the memory the models may take together; 0 = what the machine has available
 * @param embeddingCacheBytes memory for image embeddings kept by picture (0: none kept)
 * @param maxMemoryBytes what the loaded models may keep together ({@code models.max_memory}, counted with
 *                       {@link ModelLoad#memoryMb()} per loaded handle): a model that would go beyond loads only in
 *                       place of others, on any runtime; 0 = no limit
 */
public record RegistrySettings(int maxLoaded, int maxQueued, Duration idleUnload, Duration loadTimeout,
                               String eosGuard, String memoryCheck, int memoryBudgetMb, long embeddingCacheBytes,
                               long maxMemoryBytes) {

    /** The same with the runtime's faults handled as {@code auto} decides and no limit on what stays loaded. */
    public RegistrySettings(int maxLoaded, int maxQueued, Duration idleUnload, Duration loadTimeout) {
        this(maxLoaded, maxQueued, idleUnload, loadTimeout, "auto", "auto", 0, 0, 0);
    }

    /** The same without a limit on what stays loaded. */
    public RegistrySettings(int maxLoaded, int maxQueued, Duration idleUnload, Duration loadTimeout,
                            String eosGuard, String memoryCheck, int memoryBudgetMb, long embeddingCacheBytes) {
        this(maxLoaded, maxQueued, idleUnload, loadTimeout, eosGuard, memoryCheck, memoryBudgetMb,
                embeddingCacheBytes, 0);
    }

    /** Whether a setting of {@code auto}, {@code on} or {@code off} holds for runtime {@code abi}. */
    static boolean on(String setting, String abi) {
        return switch (setting) {
            case "on", "true" -> true;
            case "off", "false" -> false;
            default -> abi.equals("1.3");
        };
    }
}
