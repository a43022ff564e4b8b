package io.rkllm.server.backend.rkllm;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

class NpuLockTest {

    @Test
    void anEncoderRunWaitsForTheLanguageModelsRunAndGivesUpWhenCancelled() throws Exception {
        NpuLock npu = new NpuLock();
        CountDownLatch running = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        Thread generation = Thread.ofPlatform().start(() -> npu.generating(() -> {
            running.countDown();
            try {
                release.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            return null;
        }));
        assertThat(running.await(5, TimeUnit.SECONDS)).isTrue();
        // two language models may run side by side
        assertThat(npu.<Boolean>generating(() -> true)).isTrue();
        AtomicBoolean cancelled = new AtomicBoolean();
        CountDownLatch gaveUp = new CountDownLatch(1);
        Thread encoder = Thread.ofPlatform().start(() -> {
            if (!npu.encoding(cancelled::get)) {
                gaveUp.countDown();
            }
        });
        cancelled.set(true);
        assertThat(gaveUp.await(5, TimeUnit.SECONDS)).as("a cancelled wait ends without the lock").isTrue();
        encoder.join();
        release.countDown();
        generation.join();
        assertThat(npu.encoding(() -> false)).isTrue();
        npu.encoded();
    }

    @Test
    void aLanguageModelRunWaitsWhileTheEncoderRuns() throws Exception {
        NpuLock npu = new NpuLock();
        assertThat(npu.encoding(() -> false)).isTrue();
        AtomicBoolean ran = new AtomicBoolean();
        CountDownLatch done = new CountDownLatch(1);
        Thread generation = Thread.ofPlatform().start(() -> {
            npu.generating(() -> {
                ran.set(true);
                return null;
            });
            done.countDown();
        });
        assertThat(done.await(200, TimeUnit.MILLISECONDS)).as("blocked while the encoder holds the NPU").isFalse();
        assertThat(ran).isFalse();
        npu.encoded();
        assertThat(done.await(5, TimeUnit.SECONDS)).isTrue();
        assertThat(ran).isTrue();
        generation.join();
    }
}
