package io.rkllm.server.backend.llama;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.foreign.ValueLayout;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** The memory saved states are written into: blocks made ready ahead, touched a stride at a time. */
class StateMemoryTest {
    private static final long MIB = StateMemory.STRIDE;

    @Test
    void aBlockMadeReadyIsTheOneTheNextStateOfItsSizeTakes() {
        try (StateMemory memory = new StateMemory()) {
            memory.prepare(List.of(3 * MIB + 5), () -> false);
            // whole strides, an eighth more than asked: the conversation may go on before it is saved
            assertThat(memory.readyBytes()).isEqualTo(4 * MIB);
            assertThat(memory.readyFor(3 * MIB + 5)).isTrue();
            assertThat(memory.readyFor(3 * MIB + 600_000)).isTrue();
            StateMemory.Block block = memory.take(3 * MIB + 600_000, List.of()).orElseThrow();
            assertThat(block.size()).isEqualTo(4 * MIB);
            assertThat(memory.readyBytes()).isZero();
            block.memory().set(ValueLayout.JAVA_LONG, 4 * MIB - 8, 42L);
            assertThat(block.memory().get(ValueLayout.JAVA_LONG, 4 * MIB - 8)).isEqualTo(42L);
            block.free();
            // none ready now: new memory of the size asked
            StateMemory.Block fresh = memory.take(100, List.of()).orElseThrow();
            assertThat(fresh.size()).isEqualTo(100);
            fresh.free();
        }
    }

    @Test
    void makingBlocksReadyStopsWhenAskedAndGoesOnAtTheNextCall() {
        try (StateMemory memory = new StateMemory()) {
            AtomicInteger looks = new AtomicInteger();
            // two blocks of 3 strides; asked to stop at the fifth look: four strides touched of six
            memory.prepare(List.of(5 * MIB / 2, 5 * MIB / 2), () -> looks.incrementAndGet() > 4);
            assertThat(looks.get()).isEqualTo(5);
            assertThat(memory.readyBytes()).isEqualTo(6 * MIB);
            looks.set(0);
            memory.prepare(List.of(5 * MIB / 2, 5 * MIB / 2), () -> looks.incrementAndGet() > 99);
            assertThat(looks.get()).isEqualTo(2); // the two strides left, the same blocks
            assertThat(memory.readyBytes()).isEqualTo(6 * MIB);
        }
    }

    @Test
    void aReadyBlockMuchLargerThanAStateIsNotSpentOnItAndOneNoLongerWantedIsFreed() {
        try (StateMemory memory = new StateMemory()) {
            memory.prepare(List.of(8 * MIB), () -> false);
            StateMemory.Block small = memory.take(MIB, List.of()).orElseThrow();
            assertThat(small.size()).isEqualTo(MIB);
            assertThat(memory.readyBytes()).isEqualTo(9 * MIB);
            small.free();
            // asked ready for a small state, the large block makes way for one of its size
            memory.prepare(List.of(MIB), () -> false);
            assertThat(memory.readyBytes()).isEqualTo(2 * MIB);
            memory.prepare(List.of(), () -> false);
            assertThat(memory.readyBytes()).isZero();
        }
    }

    @Test
    void aDroppedStatesBlockThatFitsIsTakenBeforeNewMemoryAndTheOthersAreFreed() {
        try (StateMemory memory = new StateMemory()) {
            StateMemory.Block a = memory.take(5 * MIB, List.of()).orElseThrow();
            StateMemory.Block b = memory.take(2 * MIB, List.of()).orElseThrow();
            StateMemory.Block taken = memory.take(2 * MIB - 10, List.of(a, b)).orElseThrow();
            assertThat(taken).isSameAs(b);
            assertThat(a.arena().scope().isAlive()).isFalse();
            assertThat(b.arena().scope().isAlive()).isTrue();
            taken.free();
        }
    }

    @Test
    void readyBlocksAreTrimmedTheLastMadeFirst() {
        try (StateMemory memory = new StateMemory()) {
            memory.prepare(List.of(MIB / 2, 2 * MIB, 3 * MIB), () -> false);
            assertThat(memory.readyBytes()).isEqualTo(MIB + 3 * MIB + 4 * MIB);
            memory.trim(5 * MIB);
            assertThat(memory.readyBytes()).isEqualTo(4 * MIB);
            assertThat(memory.readyFor(2 * MIB)).isTrue();
            memory.trim(0);
            assertThat(memory.readyBytes()).isZero();
        }
    }
}
