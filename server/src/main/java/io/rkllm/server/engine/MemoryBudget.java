package io.rkllm.server.engine;

import io.rkllm.server.domain.Failure;
import io.rkllm.server.domain.FailureException;
import io.rkllm.server.engine.contract.ModelLoad;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;
import java.util.function.Supplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The memory models take, checked before every load of a model or slot ({@code rkllm_init}, a GGUF model's). A
 * failed init of runtime 1.2 returns -1 ("failed to malloc npu memory"), so trying costs nothing; runtime 1.3.0
 * crashes the whole process with a segmentation fault instead (rknn-llm#522), taking every loaded model and queued request with it. With the check
 * on (runtime 1.3 by default), an init that may not fit is not attempted.
 *
 * <p>The rule: a handle needs the {@link ModelLoad#memoryMb()} its model states or the layer above estimated (NPU
 * memory on RK3588/RK3576 is ordinary RAM mapped for the NPU). It fits when that is at most what is free: with a
 * configured budget ({@code models.memory_budget_mb}), the budget less what the live handles of this server
 * hold; otherwise what the machine has available now ({@code MemAvailable} of /proc/meminfo, which already
 * leaves out the loaded models) less {@value #RESERVE_MB} MB for the system. Inits run one at a time, so two
 * cannot both take the last room. The registry uses the same numbers to unload idle models first.
 */
public final class MemoryBudget {
    /** Left free for the system, the JVM and the runtime's buffers when the budget is the machine's memory. */
    static final long RESERVE_MB = 256;
    private static final Pattern MEM_AVAILABLE = Pattern.compile("MemAvailable:\\s+(\\d+) kB");

    private final boolean enabled;
    private final long budgetMb;
    private final LongSupplier availableMb;
    private final AtomicLong held = new AtomicLong();
    private final Object inits = new Object();

    /**
     * @param enabled check before each init (else only count)
     * @param budgetMb the memory the models may take together; 0 = what the machine has available
     * @param availableMb what the machine has available now, in MB; negative when unknown (everything fits)
     */
    public MemoryBudget(boolean enabled, long budgetMb, LongSupplier availableMb) {
        this.enabled = enabled;
        this.budgetMb = budgetMb;
        this.availableMb = availableMb;
    }

    /** {@code MemAvailable} of a meminfo file, in MB; -1 when it cannot be read. */
    public static long available(Path meminfo) {
        try {
            Matcher m = MEM_AVAILABLE.matcher(Files.readString(meminfo));
            return m.find() ? Long.parseLong(m.group(1)) / 1024 : -1;
        } catch (IOException | RuntimeException e) {
            return -1;
        }
    }

    boolean enabled() {
        return enabled;
    }

    /** What is free for another model now, in MB ({@link Long#MAX_VALUE} when unknown). */
    long freeMb() {
        if (budgetMb > 0) {
            return budgetMb - held.get();
        }
        long available = availableMb.getAsLong();
        return available < 0 ? Long.MAX_VALUE : available - RESERVE_MB;
    }

    /** Whether {@code needMb} more fits, once {@code releasingMb} (held by models being unloaded) is free. */
    boolean fits(long needMb, long releasingMb) {
        if (!enabled) {
            return true;
        }
        long free = freeMb();
        return free == Long.MAX_VALUE || needMb <= free + releasingMb;
    }

    /**
     * One load (of a slot, a GGUF model, an encoder) under the check: the handle's memory is counted as held from then on (give it back
     * with {@link #release}); when it does not fit, the init is not attempted.
     *
     * @throws FailureException {@link Failure.InsufficientMemory}
     */
    <T> T load(String model, long needMb, Supplier<T> init) {
        return load(model, needMb, true, init);
    }

    /** @param fatal a failed load of this model's runtime crashes the process (said in the refusal) */
    <T> T load(String model, long needMb, boolean fatal, Supplier<T> init) {
        synchronized (inits) {
            long free = freeMb();
            if (enabled && free != Long.MAX_VALUE && needMb > free) {
                throw new FailureException(insufficient(model, needMb, Math.max(0, free), fatal));
            }
            held.addAndGet(needMb);
            try {
                return init.get();
            } catch (RuntimeException | Error e) {
                held.addAndGet(-needMb);
                throw e;
            }
        }
    }

    /** A handle of {@code mb} was destroyed. */
    void release(long mb) {
        held.addAndGet(-mb);
    }

    /** The failure of a model that does not fit (an RKLLM model: its runtime's failed load is fatal). */
    Failure.InsufficientMemory insufficient(String model, long neededMb, long freeMb) {
        return insufficient(model, neededMb, freeMb, true);
    }

    /** The failure of a model that does not fit; {@code fatal}: its runtime crashes instead of failing a load. */
    Failure.InsufficientMemory insufficient(String model, long neededMb, long freeMb, boolean fatal) {
        String budget = budgetMb > 0 ? "models.memory_budget_mb " + budgetMb + " MB, " + held.get() + " MB held"
                : "what the machine has available, less " + RESERVE_MB + " MB";
        String estimate = fatal ? "memory_mb in its model.yaml, else 1.3 times its file size, for each cache slot; an"
                + " image encoder 1.3 times its .rknn file"
                : "memory_mb in its model.yaml, else its file, the KV cache of every conversation it serves at once"
                + " and the library's buffers";
        String why = fatal ? " Runtime 1.3.0 crashes the whole server instead of failing when memory runs out"
                + " (rknn-llm#522), so the load was not attempted:" : " The load was not attempted:";
        return new Failure.InsufficientMemory(model, neededMb, freeMb, "model " + model + " needs about " + neededMb
                + " MB (" + estimate + ") but only " + freeMb + " MB are free for it (" + budget + ")." + why
                + " unload another model, free memory, or correct memory_mb in the model's model.yaml");
    }
}
