package io.rkllm.server.backend.llama;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.foreign.ValueLayout;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** The memory saved states are written into: blocks made ready ahead, touched a stride at a time. */
class StateMemoryTest {
    private static final long MIB = StateMemory.STRIDE;
    private static final long ANY = Long.MAX_VALUE;

    @Test
    void aReadyBlockIsAnEighthLargerThanItsStateInWholeGrains() {
        assertThat(StateMemory.readySize(8 * MIB)).isEqualTo(9 * MIB);
        assertThat(StateMemory.readySize(8 * MIB + 1)).isEqualTo(9 * MIB + StateMemory.GRAIN);
    }

    @Test
    void aBlockMadeReadyIsTheOneTheNextStateOfItsSizeTakes() {
        try (StateMemory memory = new StateMemory()) {
            memory.prepare(List.of(8 * MIB), ANY, () -> false);
            assertThat(memory.readyBytes()).isEqualTo(9 * MIB);
            // the conversation went on meanwhile: its state still fits
            assertThat(memory.readyFor(8 * MIB + MIB / 2)).isTrue();
            StateMemory.Block block = memory.take(8 * MIB + MIB / 2, List.of(), ANY).orElseThrow();
            assertThat(block.size()).isEqualTo(9 * MIB);
            assertThat(memory.readyBytes()).isZero();
            block.memory().set(ValueLayout.JAVA_LONG, 9 * MIB - 8, 42L);
            assertThat(block.memory().get(ValueLayout.JAVA_LONG, 9 * MIB - 8)).isEqualTo(42L);
            block.free();
            // none ready now: new memory of the size asked
            StateMemory.Block fresh = memory.take(100, List.of(), ANY).orElseThrow();
            assertThat(fresh.size()).isEqualTo(100);
            fresh.free();
        }
    }

    @Test
    void makingBlocksReadyStopsWhenAskedAndGoesOnAtTheNextCall() {
        try (StateMemory memory = new StateMemory()) {
            AtomicInteger looks = new AtomicInteger();
            long state = 8 * MIB / 3; // a block of 3 strides
            assertThat(StateMemory.readySize(state)).isEqualTo(3 * MIB);
            // two blocks; asked to stop at the fifth look: four strides touched of six
            memory.prepare(List.of(state, state), ANY, () -> looks.incrementAndGet() > 4);
            assertThat(looks.get()).isEqualTo(5);
            assertThat(memory.readyBytes()).isEqualTo(6 * MIB);
            // one block all touched, the other not: only a state taking the first is a ready one
            assertThat(memory.hasFitting(state)).isTrue();
            assertThat(memory.readyFor(state)).isTrue();
            looks.set(0);
            memory.prepare(List.of(state, state), ANY, () -> looks.incrementAndGet() > 99);
            assertThat(looks.get()).isEqualTo(2); // the two strides left, the same blocks
            assertThat(memory.readyBytes()).isEqualTo(6 * MIB);
        }
    }

    @Test
    void aBlockNotTouchedYetIsTakenButNotCountedReady() {
        try (StateMemory memory = new StateMemory()) {
            memory.prepare(List.of(MIB), ANY, () -> true); // a request came before the first stride
            assertThat(memory.hasFitting(MIB)).isTrue();
            assertThat(memory.readyFor(MIB)).isFalse();
            StateMemory.Block block = memory.take(MIB, List.of(), ANY).orElseThrow();
            assertThat(block.size()).isEqualTo(StateMemory.readySize(MIB));
            block.free();
        }
    }

    @Test
    void theBudgetCountsTheBlocksKeptAsTheyAre() {
        try (StateMemory memory = new StateMemory()) {
            memory.prepare(List.of(8 * MIB), ANY, () -> false);
            // the state shrank (a regenerated answer): the 9 MiB block still fits it and counts as 9 MiB
            memory.prepare(List.of(15 * MIB / 2, MIB), 9 * MIB, () -> false);
            assertThat(memory.readyBytes()).isEqualTo(9 * MIB);
            memory.prepare(List.of(15 * MIB / 2, MIB), 9 * MIB + StateMemory.readySize(MIB), () -> false);
            assertThat(memory.readyBytes()).isEqualTo(9 * MIB + StateMemory.readySize(MIB));
        }
    }

    @Test
    void aReadyBlockMuchLargerThanAStateIsNotSpentOnItAndOneNoLongerWantedIsFreed() {
        try (StateMemory memory = new StateMemory()) {
            memory.prepare(List.of(8 * MIB), ANY, () -> false);
            StateMemory.Block small = memory.take(MIB, List.of(), ANY).orElseThrow();
            assertThat(small.size()).isEqualTo(MIB);
            assertThat(memory.readyBytes()).isEqualTo(9 * MIB);
            small.free();
            // asked ready for a small state, the large block makes way for one of its size
            memory.prepare(List.of(MIB), ANY, () -> false);
            assertThat(memory.readyBytes()).isEqualTo(StateMemory.readySize(MIB));
            memory.prepare(List.of(), ANY, () -> false);
            assertThat(memory.readyBytes()).isZero();
        }
    }

    @Test
    void aDroppedStatesBlockThatFitsTheRoomIsTakenBeforeNewMemoryAndTheOthersAreFreed() {
        try (StateMemory memory = new StateMemory()) {
            StateMemory.Block a = memory.take(5 * MIB, List.of(), ANY).orElseThrow();
            StateMemory.Block b = memory.take(2 * MIB, List.of(), ANY).orElseThrow();
            StateMemory.Block taken = memory.take(2 * MIB - 10, List.of(a, b), ANY).orElseThrow();
            assertThat(taken).isSameAs(b);
            assertThat(a.arena().scope().isAlive()).isFalse();
            assertThat(b.arena().scope().isAlive()).isTrue();
            // one larger than the room left is not
            StateMemory.Block c = memory.take(2 * MIB, List.of(), ANY).orElseThrow();
            StateMemory.Block fresh = memory.take(2 * MIB - 10, List.of(c), 2 * MIB - 10).orElseThrow();
            assertThat(fresh).isNotSameAs(c);
            assertThat(fresh.size()).isEqualTo(2 * MIB - 10);
            assertThat(c.arena().scope().isAlive()).isFalse();
            fresh.free();
            taken.free();
        }
    }

    @Test
    void readyBlocksAreTrimmedTheLastMadeFirst() {
        try (StateMemory memory = new StateMemory()) {
            memory.prepare(List.of(MIB, 2 * MIB, 8 * MIB), ANY, () -> false);
            long first = StateMemory.readySize(MIB);
            long second = StateMemory.readySize(2 * MIB);
            assertThat(memory.readyBytes()).isEqualTo(first + second + 9 * MIB);
            memory.trim(first + second + MIB);
            assertThat(memory.readyBytes()).isEqualTo(first + second);
            assertThat(memory.readyFor(2 * MIB)).isTrue();
            memory.trim(0);
            assertThat(memory.readyBytes()).isZero();
        }
    }
}
