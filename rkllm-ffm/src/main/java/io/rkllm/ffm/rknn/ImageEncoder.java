package io.rkllm.ffm.rknn;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_FLOAT;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import io.rkllm.ffm.NativeOutputCapture;
import java.lang.foreign.Arena;
import java.lang.foreign.GroupLayout;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One loaded encoder model ({@code rknn_context}): RGB pixels in, the embeddings that {@code rkllm_run}
 * takes as multimodal input out. Every call must come from one thread, the one that opened it (a report
 * has the runtime failing with "failed to submit" when a context is used from several), and never while
 * an RKLLM run is on the NPU: the engine serialises both under its NPU lock.
 */
public final class ImageEncoder implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(ImageEncoder.class);

    private static final int QUERY_IN_OUT_NUM = 0;
    private static final int QUERY_INPUT_ATTR = 1;
    private static final int QUERY_OUTPUT_ATTR = 2;
    private static final int QUERY_PERF_RUN = 4;
    private static final int QUERY_SDK_VERSION = 5;

    private final RknnApi api;
    private final Path model;
    private final long context;
    private final CoreMask cores;
    private final EncoderInput input;
    private final List<TensorAttr> outputs;
    private final EmbeddingShape shape;
    private final RknnVersion version;
    private long lastRunMicros;
    private boolean closed;

    private ImageEncoder(RknnApi api, Path model, long context, CoreMask cores, EncoderInput input,
                         List<TensorAttr> outputs, RknnVersion version) {
        this.api = api;
        this.model = model;
        this.context = context;
        this.cores = cores;
        this.input = input;
        this.outputs = List.copyOf(outputs);
        this.shape = EmbeddingShape.of(outputs);
        this.version = version;
    }

    static ImageEncoder open(RknnApi api, Path model, CoreMask cores, NativeOutputCapture capture) {
        if (cores != CoreMask.AUTO && !api.supports(RknnFunction.SET_CORE_MASK)) {
            throw new UnsupportedRknnFunctionException(RknnFunction.SET_CORE_MASK);
        }
        long context;
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment out = arena.allocate(JAVA_LONG);
            MemorySegment path = arena.allocateFrom(model.toString());
            MethodHandle init = api.handle(RknnFunction.INIT);
            var result = capture.capture(() -> invoke(init, h -> (int) h.invokeExact(out, path, 0, 0,
                    MemorySegment.NULL)));
            result.output().lines().filter(line -> !line.isBlank())
                    .forEach(line -> LOG.info("rknn runtime: {}", line.strip()));
            int rc = result.value();
            context = out.get(JAVA_LONG, 0);
            if (rc != 0 || context == 0) {
                String reason = result.output().lines().filter(l -> l.startsWith("E RKNN"))
                        .map(l -> l.replaceFirst("^E RKNN: (\\[[^]]*] )?", "")).reduce((a, b) -> a + "; " + b)
                        .orElse("");
                throw new RknnException("rknn_init failed for " + model + ": " + RknnException.codeName(rc) + " ("
                        + rc + ")" + (reason.isEmpty() ? "" : ": " + reason), rc != 0 ? rc : -1);
            }
        }
        try {
            if (cores != CoreMask.AUTO) {
                int mask = cores.value();
                check("rknn_set_core_mask(" + cores + ")", invoke(api.handle(RknnFunction.SET_CORE_MASK),
                        h -> (int) h.invokeExact(context, mask)));
            }
            return describe(api, model, context, cores);
        } catch (RuntimeException | Error e) {
            destroy(api, context);
            throw e;
        }
    }

    private static ImageEncoder describe(RknnApi api, Path model, long context, CoreMask cores) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment io = arena.allocate(RknnLayouts.INPUT_OUTPUT_NUM);
            query(api, context, QUERY_IN_OUT_NUM, io);
            int inputs = io.get(JAVA_INT, RknnLayouts.offset(RknnLayouts.INPUT_OUTPUT_NUM, "n_input"));
            int outputCount = io.get(JAVA_INT, RknnLayouts.offset(RknnLayouts.INPUT_OUTPUT_NUM, "n_output"));
            if (inputs != 1) {
                throw new RknnException(model + " has " + inputs + " inputs: an image encoder has one", -1);
            }
            TensorAttr in = attr(api, context, QUERY_INPUT_ATTR, 0, arena);
            List<TensorAttr> outs = new ArrayList<>();
            for (int j = 0; j < outputCount; j++) {
                outs.add(attr(api, context, QUERY_OUTPUT_ATTR, j, arena));
            }
            MemorySegment v = arena.allocate(RknnLayouts.SDK_VERSION);
            query(api, context, QUERY_SDK_VERSION, v);
            RknnVersion version = new RknnVersion(
                    cString(v, RknnLayouts.offset(RknnLayouts.SDK_VERSION, "api_version"), 256),
                    cString(v, RknnLayouts.offset(RknnLayouts.SDK_VERSION, "drv_version"), 256));
            ImageEncoder encoder = new ImageEncoder(api, model, context, cores, inputOf(model, in), outs, version);
            LOG.info("image encoder {}: input {}x{}x{} {} {}, {} output(s) of {} tokens x {} (RKNN runtime {}, driver {})",
                    model, encoder.input.width(), encoder.input.height(), encoder.input.channels(), in.format(),
                    in.type(), outputCount, encoder.shape.imageTokens(), encoder.shape.outputWidth(), version.api(),
                    version.driver());
            return encoder;
        }
    }

    /** The demo's reading: dims are [1, C, H, W] for NCHW and [1, H, W, C] otherwise. */
    private static EncoderInput inputOf(Path model, TensorAttr in) {
        List<Integer> d = in.dims();
        if (d.size() != 4) {
            throw new RknnException(model + ": the input has dims " + d + ", not an image's 4", -1);
        }
        return in.format() == TensorFormat.NCHW
                ? new EncoderInput(d.get(3), d.get(2), d.get(1), in.format(), in.type())
                : new EncoderInput(d.get(2), d.get(1), d.get(3), in.format(), in.type());
    }

    private static TensorAttr attr(RknnApi api, long context, int cmd, int index, Arena arena) {
        GroupLayout l = RknnLayouts.TENSOR_ATTR;
        MemorySegment a = arena.allocate(l);
        a.set(JAVA_INT, RknnLayouts.offset(l, "index"), index);
        query(api, context, cmd, a);
        int nDims = Math.min(RknnLayouts.MAX_DIMS, Math.max(0, a.get(JAVA_INT, RknnLayouts.offset(l, "n_dims"))));
        List<Integer> dims = new ArrayList<>();
        long dimsAt = RknnLayouts.offset(l, "dims");
        for (int i = 0; i < nDims; i++) {
            dims.add(a.get(JAVA_INT, dimsAt + 4L * i));
        }
        return new TensorAttr(a.get(JAVA_INT, RknnLayouts.offset(l, "index")), dims,
                cString(a, RknnLayouts.offset(l, "name"), RknnLayouts.MAX_NAME_LEN),
                a.get(JAVA_INT, RknnLayouts.offset(l, "n_elems")),
                a.get(JAVA_INT, RknnLayouts.offset(l, "size")),
                TensorFormat.of(a.get(JAVA_INT, RknnLayouts.offset(l, "fmt"))),
                TensorType.of(a.get(JAVA_INT, RknnLayouts.offset(l, "type"))));
    }

    private static void query(RknnApi api, long context, int cmd, MemorySegment info) {
        int size = (int) info.byteSize();
        check("rknn_query(" + cmd + ")", invoke(api.handle(RknnFunction.QUERY),
                h -> (int) h.invokeExact(context, cmd, info, size)));
    }

    private static String cString(MemorySegment segment, long offset, int max) {
        byte[] bytes = segment.asSlice(offset, max).toArray(JAVA_BYTE);
        int n = 0;
        while (n < bytes.length && bytes[n] != 0) {
            n++;
        }
        return new String(bytes, 0, n, StandardCharsets.UTF_8);
    }

    public Path model() {
        return model;
    }

    public CoreMask cores() {
        return cores;
    }

    /** The picture {@link #encode} takes. */
    public EncoderInput input() {
        return input;
    }

    public List<TensorAttr> outputs() {
        return outputs;
    }

    /** Tokens per image and floats per token of {@link #encode}'s result. */
    public EmbeddingShape shape() {
        return shape;
    }

    public RknnVersion version() {
        return version;
    }

    /** The runtime's own measure of the last run ({@code RKNN_QUERY_PERF_RUN}), in microseconds; 0 if unknown. */
    public long lastRunMicros() {
        return lastRunMicros;
    }

    /**
     * Runs the encoder on one picture: {@code rgb} holds {@link EncoderInput#bytes()} bytes, RGB, row after
     * row (NHWC), already padded and resized to the input size. Returns {@code shape().floats()} floats:
     * token after token, each the outputs' slices in output order. Blocks for the run (seconds on an NPU);
     * the runtime's output buffers are released before it returns, whatever happens.
     */
    public float[] encode(byte[] rgb) {
        ensureOpen();
        if (rgb.length != input.bytes()) {
            throw new IllegalArgumentException("the encoder takes " + input.width() + "x" + input.height() + "x"
                    + input.channels() + " = " + input.bytes() + " bytes, not " + rgb.length);
        }
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment pixels = arena.allocate(rgb.length);
            MemorySegment.copy(rgb, 0, pixels, JAVA_BYTE, 0, rgb.length);
            GroupLayout il = RknnLayouts.INPUT;
            MemorySegment in = arena.allocate(il);
            in.set(JAVA_INT, RknnLayouts.offset(il, "index"), 0);
            in.set(ADDRESS, RknnLayouts.offset(il, "buf"), pixels);
            in.set(JAVA_INT, RknnLayouts.offset(il, "size"), rgb.length);
            in.set(JAVA_BYTE, RknnLayouts.offset(il, "pass_through"), (byte) 0);
            in.set(JAVA_INT, RknnLayouts.offset(il, "type"), TensorType.UINT8.value());
            in.set(JAVA_INT, RknnLayouts.offset(il, "fmt"), TensorFormat.NHWC.value());
            check("rknn_inputs_set", invoke(api.handle(RknnFunction.INPUTS_SET),
                    h -> (int) h.invokeExact(context, 1, in)));
            check("rknn_run", invoke(api.handle(RknnFunction.RUN),
                    h -> (int) h.invokeExact(context, MemorySegment.NULL)));
            return collect(arena);
        }
    }

    private float[] collect(Arena arena) {
        GroupLayout ol = RknnLayouts.OUTPUT;
        int n = shape.outputs();
        MemorySegment outs = arena.allocate(ol, n);
        for (int j = 0; j < n; j++) {
            outs.set(JAVA_BYTE, j * ol.byteSize() + RknnLayouts.offset(ol, "want_float"), (byte) 1);
        }
        check("rknn_outputs_get", invoke(api.handle(RknnFunction.OUTPUTS_GET),
                h -> (int) h.invokeExact(context, n, outs, MemorySegment.NULL)));
        try {
            int tokens = shape.imageTokens();
            int width = shape.outputWidth();
            long bytes = (long) tokens * width * Float.BYTES;
            float[] result = new float[shape.floats()];
            for (int j = 0; j < n; j++) {
                long at = j * ol.byteSize();
                int size = outs.get(JAVA_INT, at + RknnLayouts.offset(ol, "size"));
                MemorySegment buf = outs.get(ADDRESS, at + RknnLayouts.offset(ol, "buf"));
                if (size != bytes || buf.equals(MemorySegment.NULL)) {
                    throw new RknnException("rknn_outputs_get gave output " + j + " " + size + " bytes, expected "
                            + bytes, -1);
                }
                MemorySegment floats = buf.reinterpret(bytes);
                for (int t = 0; t < tokens; t++) {
                    MemorySegment.copy(floats, JAVA_FLOAT, (long) t * width * Float.BYTES, result,
                            t * shape.embeddingWidth() + j * width, width);
                }
            }
            lastRunMicros = perfRunMicros(arena);
            return result;
        } finally {
            // every output, not only the first (the official demo's leak)
            int rc = invoke(api.handle(RknnFunction.OUTPUTS_RELEASE), h -> (int) h.invokeExact(context, n, outs));
            if (rc != 0) {
                LOG.warn("rknn_outputs_release returned {}", RknnException.codeName(rc));
            }
        }
    }

    private long perfRunMicros(Arena arena) {
        MemorySegment perf = arena.allocate(RknnLayouts.PERF_RUN);
        int size = (int) perf.byteSize();
        int rc = invoke(api.handle(RknnFunction.QUERY), h -> (int) h.invokeExact(context, QUERY_PERF_RUN, perf, size));
        return rc == 0 ? perf.get(JAVA_LONG, RknnLayouts.offset(RknnLayouts.PERF_RUN, "run_duration")) : 0;
    }

    /** {@code rknn_destroy}; idempotent. */
    @Override
    public void close() {
        if (!closed) {
            closed = true;
            destroy(api, context);
        }
    }

    public boolean isClosed() {
        return closed;
    }

    private void ensureOpen() {
        if (closed) {
            throw new IllegalStateException("the image encoder " + model + " has been closed");
        }
    }

    private static void destroy(RknnApi api, long context) {
        int rc = invoke(api.handle(RknnFunction.DESTROY), h -> (int) h.invokeExact(context));
        if (rc != 0) {
            LOG.warn("rknn_destroy returned {}", RknnException.codeName(rc));
        }
    }

    private static void check(String function, int rc) {
        if (rc != 0) {
            throw RknnException.of(function, rc);
        }
    }

    @FunctionalInterface
    private interface NativeCall {
        int call(MethodHandle handle) throws Throwable;
    }

    private static int invoke(MethodHandle handle, NativeCall call) {
        try {
            return call.call(handle);
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable t) {
            throw new RknnException("native call failed: " + t, -1);
        }
    }
}
