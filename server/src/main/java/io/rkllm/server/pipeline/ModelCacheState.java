package io.rkllm.server.pipeline;

import java.util.ArrayList;
import java.util.List;

/** The pipeline's state of one loaded model: one {@link SlotState} per handle. Worker thread only. */
public final class ModelCacheState {
    private final List<SlotState> slots = new ArrayList<>();
    private long tick;

    public ModelCacheState(int slots) {
        for (int i = 0; i < slots; i++) {
            this.slots.add(new SlotState());
        }
    }

    SlotState slot(int index) {
        return slots.get(index);
    }

    int size() {
        return slots.size();
    }

    long nextTick() {
        return ++tick;
    }
}
