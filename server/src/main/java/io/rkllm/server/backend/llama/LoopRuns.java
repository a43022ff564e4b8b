package io.rkllm.server.backend.llama;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;

/**
 * The decode loop's runs, where each one is: waiting for a sequence, waiting for room in the shared KV cache (given
 * their cells up until a run ends, first in line then), or decoding. Touched on the loop's thread only.
 */
final class LoopRuns {
    final Deque<SubmittedGeneration> waiting = new ArrayDeque<>();
    final Deque<SubmittedGeneration> postponed = new ArrayDeque<>();
    final List<DecodingGeneration> active = new ArrayList<>();

    /** A run's end is what postponed requests wait for: they go back in line first, in their order. */
    void runEnded() {
        while (!postponed.isEmpty()) {
            waiting.addFirst(postponed.removeLast());
        }
    }
}
