package io.rkllm.server.engine;

import io.rkllm.ffm.Model;
import io.rkllm.ffm.RkllmRuntime;

/** Where loaded models come from: the runtime library, or in tests of the layers above, nowhere. */
public interface ModelLoader {

    /** What the layers above may know of the runtime. */
    RuntimeInfo runtime();

    /** One handle of the model ({@code rkllm_init}); blocks for the whole load. */
    Model load(ModelLoad load);

    /** The models of {@code runtime}, loaded with its default parameters and the model's own settings. */
    static ModelLoader of(RkllmRuntime runtime) {
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
