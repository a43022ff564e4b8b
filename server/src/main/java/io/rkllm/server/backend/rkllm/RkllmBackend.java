package io.rkllm.server.backend.rkllm;

import io.rkllm.ffm.Abi;
import io.rkllm.ffm.RkllmRuntime;
import io.rkllm.ffm.rknn.RknnRuntime;
import io.rkllm.server.config.ServerConfig;
import io.rkllm.server.engine.contract.ChatPrompt;
import io.rkllm.server.engine.contract.AutoSetting;
import io.rkllm.server.engine.contract.Backend;
import io.rkllm.server.engine.contract.BackendModel;
import io.rkllm.server.engine.contract.LoadContext;
import io.rkllm.server.engine.contract.ModelLoad;
import io.rkllm.server.engine.contract.RuntimeInfo;
import java.util.function.Supplier;

/**
 * Rockchip's RKLLM runtime ({@code librkllmrt.so}, ABI 1.2 or 1.3) behind the engine seam: {@code .rkllm} models,
 * each slot a handle with its own KV cache reused a whole conversation at a time ({@link RkllmCachePolicy}), and
 * vision models' image encoders on the RKNN runtime ({@code librknnrt.so}). Everything that knows the binding's
 * types, or the runtime's faults, is in this package.
 */
public final class RkllmBackend implements Backend {
    /** The runtime as messages name it. */
    public static final String NAME = "RKLLM runtime";

    /**
     * The configuration this backend reads.
     *
     * @param eosGuard {@code runtime.eos_guard}: auto (on for runtime 1.3, whose EOS fault it guards), on or off
     * @param thinkingFlag {@code runtime.thinking_flag}: auto, always or never ({@link ThinkingControl})
     * @param cache the cache policy's settings ({@code cache.enabled}, {@code cache.verify},
     *              {@code vision.cache_policy})
     * @param encoderCores the NPU cores image encoders run on ({@code vision.encoder_cores}: all, auto, 0, 1, 2, 0_1,
     *                     0_1_2)
     */
    public record Settings(String eosGuard, String thinkingFlag, RkllmCachePolicy.Settings cache,
                           String encoderCores) {
        /** What the configuration leaves to {@code auto}, with the cache on and checked, encoders on every core. */
        public static final Settings DEFAULT = new Settings("auto", "auto",
                new RkllmCachePolicy.Settings(true, true, false), "all");

        /** What the configuration says. */
        public static Settings of(ServerConfig config) {
            return new Settings(config.runtime().eosGuard(), config.runtime().thinkingFlag(),
                    new RkllmCachePolicy.Settings(config.cache().enabled(), config.cache().verify(),
                            config.vision().cachePolicy().equals("incremental")), config.vision().encoderCores());
        }
    }

    private final RkllmRuntime runtime;
    private final Supplier<RknnRuntime> rknn;
    private final boolean eosGuard;
    private final RuntimeInfo info;
    private final RkllmCachePolicy policy;
    private final ThinkingControl thinking;
    private final String encoderCores;
    /** The NPU: its models' runs share it, an image encoder's run takes it alone (one backend a process). */
    private final NpuLock npu = new NpuLock();

    /**
     * @param rknn the RKNN runtime for vision models' encoders, opened when the first one loads (it throws, with the
     *             reason, when there is none)
     */
    public RkllmBackend(RkllmRuntime runtime, Supplier<RknnRuntime> rknn, Settings settings) {
        this.runtime = runtime;
        this.rknn = rknn;
        boolean abi13 = runtime.abi() == Abi.V1_3;
        this.eosGuard = AutoSetting.on(settings.eosGuard(), abi13);
        // runtime 1.3.0 crashes the process when an init runs out of memory (rknn-llm#522)
        this.info = new RuntimeInfo(NAME, runtime.abi().label(), runtime.abi().perRunSampling(),
                NativeTypes.sampling(runtime.defaultParams().sampling()), abi13, false, false,
                runtime.identity().version(), ChatPrompt.Form.TEXTS);
        this.policy = new RkllmCachePolicy(settings.cache());
        this.thinking = new ThinkingControl(settings.thinkingFlag(), runtime.abi().label());
        this.encoderCores = settings.encoderCores();
    }

    /** Without an RKNN runtime: vision models fail to load, saying so. */
    public RkllmBackend(RkllmRuntime runtime, Settings settings) {
        this(runtime, () -> {
            throw new IllegalStateException("no RKNN runtime (librknnrt.so) was given to run image encoders");
        }, settings);
    }

    @Override
    public RuntimeInfo info() {
        return info;
    }

    @Override
    public BackendModel load(ModelLoad load, LoadContext context) {
        return RkllmModel.load(runtime, rknn, load, context, npu,
                new EosWatch(load.id(), eosGuard, runtime.abi() == Abi.V1_3),
                new ConversationCache(load.slots(), policy, thinking, load.family()), encoderCores);
    }
}
