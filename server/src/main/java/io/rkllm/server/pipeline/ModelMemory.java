package io.rkllm.server.pipeline;

import io.rkllm.server.models.ModelDescriptor;
import io.rkllm.server.models.ModelFacts;
import io.rkllm.server.models.VisionSpec;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * How much memory models take, as far as the server can tell without loading them, in one estimate for everything
 * that counts memory: {@code cache.slots: auto}, the cap on what stays loaded ({@code models.max_memory}) and the
 * check before each {@code rkllm_init} ({@code models.memory_check}). A handle takes {@code memory_mb} of its
 * model.yaml when stated, else what the engine that runs it estimates from its file ({@link ModelFacts#copyBytes}:
 * about 1.3 times a file it does not read, weights, buffers and KV cache; a GGUF model's weights and the KV cache its
 * header sizes); a vision model's encoder 1.3 times its {@code .rknn}. An owner who measured a model (the runtime
 * reports {@code memory_usage_mb}, the board's free memory before and after a load) states it. The models may take
 * 60% of the machine's memory (the system, Open WebUI and the JVM keep the rest).
 */
public final class ModelMemory {
    private static final long MIB = 1L << 20;
    private static final Pattern SIZE = Pattern.compile("(\\d+)\\s*([kmgt]?)b?");

    private ModelMemory() {
    }

    /** What one handle of a model file of {@code modelFileBytes} that is not read is expected to take. */
    public static long perHandle(long modelFileBytes) {
        return ModelFacts.opaqueCopyBytes(modelFileBytes);
    }

    /**
     * What one handle of {@code model} takes, in MB: its stated {@code memory_mb}, else its engine's estimate for the
     * context it is served with.
     */
    public static long perHandleMb(ModelDescriptor model) {
        if (model.memoryMb().isPresent()) {
            return model.memoryMb().getAsInt();
        }
        return toMb(model.facts().copyBytes(model.sizeBytes(), model.contextLength()));
    }

    /** What a vision model's loaded image encoder takes, in MB. */
    public static long encoderMb(VisionSpec vision) {
        return vision.encoderBytes() <= 0 ? 0 : toMb(perHandle(vision.encoderBytes()));
    }

    /** What the loaded models may take of {@code memoryBytes}. */
    public static long budget(long memoryBytes) {
        return memoryBytes * 6 / 10;
    }

    /**
     * {@code models.max_memory} in bytes: {@code auto} is the budget of the machine's memory (no limit when that
     * is unknown), {@code 0} no limit, else a size with an optional binary suffix ({@code 6G}, {@code 4096M}).
     */
    public static long limit(String setting, long memoryBytes) {
        String value = setting.strip().toLowerCase(Locale.ROOT);
        if (value.equals("auto")) {
            return memoryBytes > 0 ? budget(memoryBytes) : 0;
        }
        Matcher m = SIZE.matcher(value);
        if (!m.matches()) {
            throw new IllegalArgumentException("not a size: " + setting);
        }
        int shift = switch (m.group(2)) {
            case "k" -> 10;
            case "m" -> 20;
            case "g" -> 30;
            case "t" -> 40;
            default -> 0;
        };
        long number = Long.parseLong(m.group(1));
        return number > Long.MAX_VALUE >> shift ? Long.MAX_VALUE : number << shift;
    }

    /** Bytes in whole MB, rounded up, at least 1. */
    private static long toMb(long bytes) {
        return Math.max(1, (bytes + MIB - 1) / MIB);
    }
}
