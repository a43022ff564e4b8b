package io.rkllm.server.pipeline;

import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * How much memory models take, as far as the server can tell without loading them: a handle takes about 1.3
 * times its model file (weights, buffers, KV cache), and the models may take 60% of the machine's memory (the
 * system, Open WebUI and the JVM keep the rest). Used for {@code cache.slots: auto} and {@code models.max_memory}.
 */
public final class ModelMemory {
    private static final Pattern SIZE = Pattern.compile("(\\d+)\\s*([kmgt]?)b?");

    private ModelMemory() {
    }

    /** What one handle of a model is expected to take. */
    public static long perHandle(long modelFileBytes) {
        return modelFileBytes * 13 / 10;
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
}
