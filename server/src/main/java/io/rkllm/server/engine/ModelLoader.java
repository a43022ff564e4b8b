package io.rkllm.server.engine;

import io.rkllm.ffm.Model;
import io.rkllm.ffm.RkllmRuntime;
import io.rkllm.ffm.rknn.RknnRuntime;
import java.util.function.Supplier;

/** Where loaded models come from: the runtime library, or in tests of the layers above, nowhere. */
public interface ModelLoader {

    /** What the layers above may know of the runtime. */
    RuntimeInfo runtime();

    /** One handle of the model ({@code rkllm_init}); blocks for the whole load. */
    Model load(ModelLoad load);

    /** The image encoder of a vision model ({@code rknn_init}), on the model's worker thread. */
    default ImageEncoding loadEncoder(ModelLoad load) {
        throw new IllegalStateException("this runtime runs no image encoders");
    }

    /** The models of {@code runtime}, loaded with its default parameters and the model's own settings. */
    static ModelLoader of(RkllmRuntime runtime) {
        return of(runtime, () -> {
            throw new IllegalStateException("no RKNN runtime (librknnrt.so) was given to run image encoders");
        });
    }

    /**
     * The same, with vision models' encoders from the RKNN runtime {@code rknn} supplies (opened when the first
     * vision model loads; it throws, with the reason, when there is none).
     */
    static ModelLoader of(RkllmRuntime runtime, Supplier<RknnRuntime> rknn) {
        RuntimeInfo info = new RuntimeInfo(runtime.abi().label(), runtime.abi().perRunSampling(),
                NativeTypes.sampling(runtime.defaultParams().sampling()));
        return new ModelLoader() {
            @Override
            public RuntimeInfo runtime() {
                return info;
            }

            @Override
            public Model load(ModelLoad load) {
                return runtime.load(NativeTypes.params(runtime.defaultParams(), load));
            }

            @Override
            public ImageEncoding loadEncoder(ModelLoad load) {
                VisionLoad vision = load.vision().orElseThrow(() -> new IllegalStateException("model " + load.id()
                        + " has no image encoder"));
                return FfmEncoder.open(rknn.get(), vision);
            }
        };
    }

    /** A runtime that describes itself but loads nothing: for tests that never run a model. */
    static ModelLoader describing(RuntimeInfo info) {
        return new ModelLoader() {
            @Override
            public RuntimeInfo runtime() {
                return info;
            }

            @Override
            public Model load(ModelLoad load) {
                throw new IllegalStateException("this runtime loads no models");
            }
        };
    }
}
