package io.rkllm.ffm;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_FLOAT;
import static java.lang.foreign.ValueLayout.JAVA_INT;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SegmentAllocator;
import java.lang.invoke.MethodHandle;
import java.util.Optional;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One initialised model handle. Every method but {@link RunControl#abort()} is a blocking native
 * call that must come from the one thread owning this model (the engine's worker), in order;
 * the runtime is not known to tolerate concurrent calls on a handle.
 */
public final class Model implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(Model.class);

    private final NativeApi api;
    private final ModelParams params;
    private final RuntimeBanner banner;
    private final Arena arena;
    private final MemorySegment handle;
    private final ResultCallback callback;
    private final RunInputCodec codec;

    /** Guards the handle's lifetime against abort calls from other threads; never held during a run. */
    private final Object lifecycle = new Object();
    private RunControl active;
    private boolean destroyed;

    private Model(NativeApi api, ModelParams params, RuntimeBanner banner, Arena arena, MemorySegment handle,
                  ResultCallback callback) {
        this.api = api;
        this.params = params;
        this.banner = banner;
        this.arena = arena;
        this.handle = handle;
        this.callback = callback;
        this.codec = new RunInputCodec(api.layouts());
    }

    static Model init(NativeApi api, ModelParams params, NativeOutputCapture capture) {
        Arena arena = Arena.ofShared();
        try {
            AbiLayouts layouts = api.layouts();
            Model[] self = new Model[1];
            ResultCallback callback = new ResultCallback(control -> {
                Model model = self[0];
                if (model != null) {
                    model.abortIfActive(control);
                }
            }, layouts.abi().releasesOutputBuffer());
            MemorySegment stub = callback.stub(arena);
            MemorySegment callbackArg = stub;
            if (layouts.callback().isPresent()) {
                callbackArg = arena.allocate(layouts.callback().get());
                callbackArg.set(ADDRESS, Structs.offset(layouts.callback().get(), "result_callback"), stub);
            }
            MemorySegment param = createDefaultParam(api, arena);
            new ParamCodec(layouts).write(param, params, arena.allocateFrom(params.modelPath().toString()));
            new ParamCodec(layouts).writeImageTags(param, params.imageTags(), arena);
            MemorySegment out = arena.allocate(ADDRESS);
            MethodHandle init = api.handle(RkllmFunction.INIT);
            MemorySegment cb = callbackArg;
            var result = capture.capture(() -> (int) invoke(init, h -> (int) h.invokeExact(out, param, cb)));
            String output = result.output();
            output.lines().filter(line -> !line.isBlank()).forEach(line -> LOG.info("runtime: {}", line.strip()));
            MemorySegment handle = out.get(ADDRESS, 0);
            int rc = result.value();
            if (rc != 0 || handle.equals(MemorySegment.NULL)) {
                // "E rkllm:" is the runtime's own reason; "E RKNN:" the NPU layer's under it (out of memory)
                String reason = output.lines().filter(l -> l.contains("E rkllm") || l.contains("E RKNN")
                                || l.toLowerCase().contains("error"))
                        .map(String::strip).reduce((a, b) -> a + "; " + b).orElse("");
                throw new RkllmException("rkllm_init failed for " + params.modelPath() + " ("
                        + (rc != 0 ? "code " + rc : "returned success but no handle")
                        + (reason.isEmpty() ? "" : ": " + reason) + ")", rc != 0 ? rc : -1);
            }
            Model model = new Model(api, params, RuntimeBanner.parse(output), arena, handle, callback);
            self[0] = model;
            return model;
        } catch (RuntimeException | Error e) {
            arena.close();
            throw e;
        }
    }

    public ModelParams params() {
        return params;
    }

    public Abi abi() {
        return api.layouts().abi();
    }

    /** What the runtime printed at init (version line, the model's max_context_limit). */
    public RuntimeBanner banner() {
        return banner;
    }

    public boolean supports(RkllmFunction function) {
        return api.supports(function);
    }

    /**
     * Runs one prompt to completion, delivering text and then exactly one terminal event to the sink
     * (on this thread), and returns that terminal event. A run aborted through {@code control}
     * before it started returns at once without calling the runtime.
     */
    public TokenEvent run(RunInput input, Consumer<TokenEvent> sink, RunControl control) {
        return execute(input, Optional.empty(), new RunSession(sink, control), RunInputCodec.MODE_GENERATE);
    }

    /**
     * Runs a prompt with images ({@code RKLLM_INPUT_MULTIMODAL}) like {@link #run(RunInput, Consumer,
     * RunControl)}: the prompt has one {@code <image>} placeholder per image, which the runtime
     * replaces with the image's tags and embeddings (a count that differs fails the run).
     */
    public TokenEvent run(RunInput input, ImageInput images, Consumer<TokenEvent> sink, RunControl control) {
        return execute(input, Optional.of(images), new RunSession(sink, control), RunInputCodec.MODE_GENERATE);
    }

    /**
     * Runs one prompt in {@code RKLLM_INFER_GET_LAST_HIDDEN_LAYER} mode and returns its hidden states,
     * copied while the runtime's buffer was valid (on ABI 1.3 the buffer is then released at once).
     * Nothing is generated; a runtime that goes on generating after the states is stopped. The input's
     * {@code keepHistory} applies as for text (false for independent embeddings; note that the runtime
     * still sees what earlier keep_history runs left in the KV cache).
     */
    public HiddenLayer lastHiddenLayer(RunInput input, RunControl control) {
        RunSession session = RunSession.forHiddenLayer(control);
        TokenEvent end = execute(input, Optional.empty(), session, RunInputCodec.MODE_LAST_HIDDEN_LAYER);
        return switch (end) {
            case TokenEvent.Failed failed -> new HiddenLayer.Failed(failed.message());
            case TokenEvent.Finished finished when finished.aborted() -> new HiddenLayer.Aborted(finished.perf());
            case TokenEvent.Finished finished -> session.hiddenLayer(finished.perf());
            case TokenEvent.Text text -> throw new IllegalStateException("text is not terminal");
        };
    }

    private TokenEvent execute(RunInput input, Optional<ImageInput> images, RunSession session, int mode) {
        RunControl control = session.control();
        try (Arena runArena = Arena.ofConfined()) {
            MemorySegment in = images.isPresent()
                    ? codec.multimodalInput(runArena, input, images.get(), params.imageTags())
                    : codec.input(runArena, input);
            MemorySegment infer = codec.inferParam(runArena, input, mode);
            synchronized (lifecycle) {
                ensureAlive();
                if (active != null) {
                    throw new IllegalStateException("a run is already active on this model");
                }
                if (!control.attach(() -> abortIfActive(control))) {
                    return session.complete(0);
                }
                active = control;
            }
            callback.begin(session);
            int rc;
            try {
                MethodHandle run = api.handle(RkllmFunction.RUN);
                rc = (int) invoke(run, h -> (int) h.invokeExact(handle, in, infer, MemorySegment.NULL));
            } finally {
                callback.end();
                synchronized (lifecycle) {
                    active = null;
                }
                control.detach();
            }
            return session.complete(rc);
        }
    }

    /** Aborts the run of {@code control} if it is the one running now; never waits for the run. */
    void abortIfActive(RunControl control) {
        synchronized (lifecycle) {
            if (destroyed || active != control) {
                return;
            }
            int rc = (int) invoke(api.handle(RkllmFunction.ABORT), h -> (int) h.invokeExact(handle));
            if (rc != 0) {
                LOG.debug("rkllm_abort returned {}", rc);
            }
        }
    }

    /** Clears the KV cache, keeping the system prompt's entries when asked. */
    public void clearKvCache(boolean keepSystemPrompt) {
        MethodHandle clear = api.handle(RkllmFunction.CLEAR_KV_CACHE);
        check("rkllm_clear_kv_cache", (int) invoke(clear, h -> (int) h.invokeExact(alive(), keepSystemPrompt ? 1 : 0,
                MemorySegment.NULL, MemorySegment.NULL)));
    }

    /** The KV cache size of each batch slot, in tokens. */
    public int[] kvCacheSizes() {
        MethodHandle size = api.handle(RkllmFunction.GET_KV_CACHE_SIZE);
        int slots = Math.max(1, params.extend().nBatch());
        try (Arena call = Arena.ofConfined()) {
            MemorySegment sizes = call.allocate(JAVA_INT, slots);
            check("rkllm_get_kv_cache_size", (int) invoke(size, h -> (int) h.invokeExact(alive(), sizes)));
            return sizes.toArray(JAVA_INT);
        }
    }

    /** Replaces the model's chat template; afterwards enable_thinking has no effect. */
    public void setChatTemplate(String systemPrompt, String promptPrefix, String promptPostfix) {
        MethodHandle set = api.handle(RkllmFunction.SET_CHAT_TEMPLATE);
        try (Arena call = Arena.ofConfined()) {
            MemorySegment a = call.allocateFrom(systemPrompt);
            MemorySegment b = call.allocateFrom(promptPrefix);
            MemorySegment c = call.allocateFrom(promptPostfix);
            check("rkllm_set_chat_template", (int) invoke(set, h -> (int) h.invokeExact(alive(), a, b, c)));
        }
    }

    /** Native tool calling: the tools as a JSON array; tool results are then run with role "tool". */
    public void setFunctionTools(String systemPrompt, String toolsJson, String toolResponseString) {
        MethodHandle set = api.handle(RkllmFunction.SET_FUNCTION_TOOLS);
        try (Arena call = Arena.ofConfined()) {
            MemorySegment a = call.allocateFrom(systemPrompt);
            MemorySegment b = call.allocateFrom(toolsJson);
            MemorySegment c = call.allocateFrom(toolResponseString);
            check("rkllm_set_function_tools", (int) invoke(set, h -> (int) h.invokeExact(alive(), a, b, c)));
        }
    }

    public void loadPromptCache(java.nio.file.Path path) {
        MethodHandle load = api.handle(RkllmFunction.LOAD_PROMPT_CACHE);
        try (Arena call = Arena.ofConfined()) {
            MemorySegment p = call.allocateFrom(path.toString());
            check("rkllm_load_prompt_cache", (int) invoke(load, h -> (int) h.invokeExact(alive(), p)));
        }
    }

    public void releasePromptCache() {
        MethodHandle release = api.handle(RkllmFunction.RELEASE_PROMPT_CACHE);
        check("rkllm_release_prompt_cache", (int) invoke(release, h -> (int) h.invokeExact(alive())));
    }

    public void loadLora(LoraAdapter adapter) {
        MethodHandle load = api.handle(RkllmFunction.LOAD_LORA);
        var l = AbiLayouts.LORA_ADAPTER;
        try (Arena call = Arena.ofConfined()) {
            MemorySegment a = call.allocate(l);
            a.set(ADDRESS, Structs.offset(l, "lora_adapter_path"), call.allocateFrom(adapter.path().toString()));
            a.set(ADDRESS, Structs.offset(l, "lora_adapter_name"), call.allocateFrom(adapter.name()));
            a.set(JAVA_FLOAT, Structs.offset(l, "scale"), adapter.scale());
            check("rkllm_load_lora", (int) invoke(load, h -> (int) h.invokeExact(alive(), a)));
        }
    }

    /**
     * The raw {@code rkllm_is_running} value. Its meaning differs between releases (0 = running in
     * 1.2's doc, 1 in 1.3's): the engine tracks run state itself and uses this only for diagnostics.
     */
    public int nativeIsRunning() {
        MethodHandle running = api.handle(RkllmFunction.IS_RUNNING);
        return (int) invoke(running, h -> (int) h.invokeExact(alive()));
    }

    /** Frees the model ({@code rkllm_destroy}); idempotent. Not allowed while a run is active. */
    @Override
    public void close() {
        synchronized (lifecycle) {
            if (destroyed) {
                return;
            }
            if (active != null) {
                throw new IllegalStateException("cannot destroy a model while a run is active");
            }
            destroyed = true;
        }
        try {
            int rc = (int) invoke(api.handle(RkllmFunction.DESTROY), h -> (int) h.invokeExact(handle));
            if (rc != 0) {
                LOG.warn("rkllm_destroy returned {}", rc);
            }
        } finally {
            arena.close();
        }
    }

    public boolean isClosed() {
        synchronized (lifecycle) {
            return destroyed;
        }
    }

    private MemorySegment alive() {
        synchronized (lifecycle) {
            ensureAlive();
            return handle;
        }
    }

    private void ensureAlive() {
        if (destroyed) {
            throw new IllegalStateException("the model has been destroyed");
        }
    }

    private static void check(String function, int rc) {
        if (rc != 0) {
            throw new RkllmException(function + " failed with code " + rc, rc);
        }
    }

    @FunctionalInterface
    interface NativeCall<T> {
        T call(MethodHandle handle) throws Throwable;
    }

    static MemorySegment createDefaultParam(NativeApi api, SegmentAllocator allocator) {
        return invoke(api.handle(RkllmFunction.CREATE_DEFAULT_PARAM),
                h -> (MemorySegment) h.invokeExact(allocator));
    }

    static <T> T invoke(MethodHandle handle, NativeCall<T> call) {
        try {
            return call.call(handle);
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable t) {
            throw new RkllmException("native call failed", t);
        }
    }
}
