package io.rkllm.server.pipeline;

import io.rkllm.server.models.ModelDescriptor;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * How many handles (KV caches) a model gets: {@code cache.slots} as a number, or {@code auto}: two,
 * so that two interleaved chats both stay cached, when two copies of the model fit in 60% of the
 * machine's memory (a handle takes what {@link ModelMemory} estimates: its stated memory_mb, else about 1.3
 * times its file size); one otherwise.
 */
public final class SlotCount {
    private static final Pattern MEM_TOTAL = Pattern.compile("MemTotal:\\s+(\\d+) kB");

    private SlotCount() {
    }

    public static int resolve(String setting, long modelFileBytes, long memoryBytes) {
        return forHandle(setting, ModelMemory.perHandle(modelFileBytes), memoryBytes);
    }

    /** The same for a model whose handle takes what {@link ModelMemory#perHandleMb} says (its stated memory_mb). */
    public static int resolve(String setting, ModelDescriptor model, long memoryBytes) {
        return forHandle(setting, ModelMemory.perHandleMb(model) << 20, memoryBytes);
    }

    private static int forHandle(String setting, long handleBytes, long memoryBytes) {
        if (!setting.equals("auto")) {
            return Integer.parseInt(setting);
        }
        if (memoryBytes <= 0) {
            return 1;
        }
        return 2 * handleBytes <= ModelMemory.budget(memoryBytes) ? 2 : 1;
    }

    /** MemTotal from /proc/meminfo, or 0 when unreadable. */
    public static long systemMemory(Path meminfo) {
        try {
            Matcher m = MEM_TOTAL.matcher(Files.readString(meminfo));
            return m.find() ? Long.parseLong(m.group(1)) * 1024 : 0;
        } catch (IOException | RuntimeException e) {
            return 0;
        }
    }
}
