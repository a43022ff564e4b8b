package io.rkllm.server.backend.llama;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.rkllm.server.engine.contract.ModelTokenizer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A GGUF model's tokenizer lent to other threads: the model's own, asked while its decode loop is busy, and never
 * reaching a freed model, whichever way the model is freed.
 */
class SharedTokenizerTest {
    private static final String TEXT = "Hé ok, the board's NPU runs it.";

    @TempDir
    Path dir;

    @Test
    void itIsTheModelsOwnAndAnswersWhileTheLoopIsBusy() throws Exception {
        GgufModel model = TinyGgufModel.load(dir, 256, 1);
        try {
            ModelTokenizer tokenizer = model.tokenizer().orElseThrow();
            CountDownLatch held = HeldLoop.hold(model.loop());
            try {
                // the loop's thread is taken: the tokenizer does not need it
                int[] tokens = tokenizer.tokenize("Hé ok", false, true);
                assertThat(tokens).isEqualTo(model.loop().model().tokenize("Hé ok", false, true));
                assertThat(new String(tokenizer.pieces(tokens).getFirst(), StandardCharsets.UTF_8)).isEqualTo("H");
                assertThat(tokenizer.vocabularySize()).isEqualTo(model.loop().model().vocabularySize());
                assertThatThrownBy(() -> tokenizer.pieces(new int[] {tokenizer.vocabularySize()}))
                        .isInstanceOf(IllegalArgumentException.class);
            } finally {
                held.countDown();
            }
        } finally {
            model.close();
        }
    }

    @Test
    void aModelFreedUnderCallsWaitsForThemAndRefusesTheNextOnes() throws Exception {
        for (int round = 0; round < 3; round++) {
            GgufModel model = TinyGgufModel.load(Files.createDirectories(dir.resolve("r" + round)), 256, 1);
            ModelTokenizer tokenizer = model.tokenizer().orElseThrow();
            String text = TEXT.repeat(400);
            int[] expected = tokenizer.tokenize(text, false, true);
            AtomicInteger answered = new AtomicInteger();
            AtomicInteger refused = new AtomicInteger();
            AtomicReference<Throwable> wrong = new AtomicReference<>();
            CountDownLatch started = new CountDownLatch(3);
            List<Thread> callers = new ArrayList<>();
            for (int t = 0; t < 3; t++) {
                callers.add(Thread.ofPlatform().start(() -> {
                    started.countDown();
                    while (refused.get() == 0 && wrong.get() == null) {
                        try {
                            assertThat(tokenizer.tokenize(text, false, true)).isEqualTo(expected);
                            answered.incrementAndGet();
                        } catch (ModelTokenizer.Unloaded e) {
                            refused.incrementAndGet();
                        } catch (Throwable e) {
                            wrong.set(e);
                        }
                    }
                }));
            }
            started.await();
            // the decode loop fails (a bug): its thread frees the model, as an unload would
            model.loop().execute(() -> {
                throw new IllegalStateException("a bug in the loop");
            });
            model.close();
            for (Thread caller : callers) {
                caller.join();
            }
            assertThat(wrong.get()).isNull();
            assertThat(refused.get()).isPositive();
            assertThatThrownBy(() -> tokenizer.pieces(new int[] {72})).isInstanceOf(ModelTokenizer.Unloaded.class);
        }
    }
}
