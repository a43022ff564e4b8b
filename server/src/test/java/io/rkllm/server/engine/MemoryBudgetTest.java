package io.rkllm.server.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.rkllm.server.domain.Failure;
import io.rkllm.server.domain.FailureException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The memory check before rkllm_init: a fixed budget, the machine's available memory, and off. */
class MemoryBudgetTest {
    @TempDir
    Path dir;

    private final AtomicInteger inits = new AtomicInteger();

    private Void init(MemoryBudget budget, String model, long mb) {
        budget.load(model, mb, () -> {
            inits.incrementAndGet();
            return null;
        });
        return null;
    }

    @Test
    void aFixedBudgetCountsWhatTheLiveHandlesHold() {
        MemoryBudget budget = new MemoryBudget(true, 3000, () -> -1);
        init(budget, "a", 2000);
        assertThat(budget.freeMb()).isEqualTo(1000);
        assertThat(budget.fits(2000, 0)).isFalse();
        assertThat(budget.fits(2000, 2000)).as("once a model being unloaded is gone").isTrue();
        assertThatThrownBy(() -> init(budget, "b", 2000)).isInstanceOfSatisfying(FailureException.class, e -> {
            Failure.InsufficientMemory f = (Failure.InsufficientMemory) e.failure();
            assertThat(f.neededMb()).isEqualTo(2000);
            assertThat(f.availableMb()).isEqualTo(1000);
            assertThat(f.message()).contains("model b needs about 2000 MB", "models.memory_budget_mb 3000 MB");
        });
        assertThat(inits).as("the refused init was not attempted").hasValue(1);
        budget.release(2000);
        init(budget, "b", 2000);
        assertThat(inits).hasValue(2);
    }

    @Test
    void withoutABudgetTheMachinesAvailableMemoryLessAReserveDecides() {
        AtomicLong available = new AtomicLong(4000);
        MemoryBudget budget = new MemoryBudget(true, 0, available::get);
        assertThat(budget.freeMb()).isEqualTo(4000 - MemoryBudget.RESERVE_MB);
        init(budget, "a", 3000);
        available.set(1000); // what the machine shows once the model took its memory
        assertThat(budget.fits(3000, 0)).isFalse();
        assertThat(budget.fits(3000, 3000)).isTrue();
        assertThatThrownBy(() -> init(budget, "b", 3000)).isInstanceOf(FailureException.class);
        available.set(-1); // unreadable: nothing to go by
        assertThat(budget.fits(1 << 20, 0)).isTrue();
    }

    @Test
    void aFailedInitGivesItsReservationBackAndOffChecksNothing() {
        MemoryBudget budget = new MemoryBudget(true, 3000, () -> -1);
        assertThatThrownBy(() -> budget.load("a", 2000, () -> {
            throw new IllegalStateException("rkllm_init failed");
        })).hasMessage("rkllm_init failed");
        assertThat(budget.freeMb()).isEqualTo(3000);
        MemoryBudget off = new MemoryBudget(false, 3000, () -> -1);
        init(off, "a", 2000);
        init(off, "b", 2000);
        assertThat(inits).hasValue(2);
        assertThat(off.fits(1 << 20, 0)).isTrue();
    }

    @Test
    void memAvailableIsReadFromMeminfo() throws IOException {
        Path meminfo = Files.writeString(dir.resolve("meminfo"), "MemTotal:       16303420 kB\n"
                + "MemFree:         9123456 kB\nMemAvailable:   12582912 kB\n");
        assertThat(MemoryBudget.available(meminfo)).isEqualTo(12288);
        assertThat(MemoryBudget.available(dir.resolve("missing"))).isEqualTo(-1);
    }
}
