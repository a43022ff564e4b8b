package io.rkllm.llama;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/** The abort callback stops a decode in its middle, leaves the cache as it was, and a check that throws is a stop. */
class AbortTest {
    private static LlamaModel model;

    @BeforeAll
    static void load() {
        model = TestLlama.runtime().load(ModelParams.of(TestLlama.chatModel()));
    }

    @AfterAll
    static void close() {
        model.close();
    }

    private static Batch prompt(int sequence, int start) {
        int[] tokens = model.tokenize("The quick brown fox jumps over the lazy dog. ".repeat(8), false, false);
        Batch batch = new Batch(tokens.length, 1);
        for (int i = 0; i < tokens.length; i++) {
            batch.add(tokens[i], start + i, sequence, i == tokens.length - 1);
        }
        return batch;
    }

    /** A prompt of sequence 0 as long as one decode of {@code context} takes: the longest decode a test can stop. */
    private Batch widestPrompt(LlamaContext context) {
        int[] tokens = model.tokenize("The quick brown fox jumps over the lazy dog. ".repeat(60), false, false);
        tokens = java.util.Arrays.copyOf(tokens, Math.min(tokens.length, context.batchSize()));
        Batch batch = new Batch(tokens.length, 1);
        for (int i = 0; i < tokens.length; i++) {
            batch.add(tokens[i], i, 0, i == tokens.length - 1);
        }
        return batch;
    }

    @Test
    void aDecodeStopsWhenTheCheckSaysSoAndTheCacheKeepsWhatItHeld() {
        try (LlamaContext context = model.newContext(ContextParams.generation(1024, 1, 1));
             Batch first = prompt(0, 0)) {
            assertThat(context.decode(first)).isEqualTo(DecodeStatus.OK);
            int held = context.kv().maxPosition(0);
            AtomicInteger polls = new AtomicInteger();
            try (Batch second = prompt(0, held + 1)) {
                DecodeStatus status = context.decode(second, () -> polls.incrementAndGet() >= 1);
                assertThat(status).isEqualTo(DecodeStatus.ABORTED);
                assertThat(polls.get()).isEqualTo(1); // not asked again once it said stop
                assertThat(context.kv().maxPosition(0)).isEqualTo(held);
                assertThat(context.decodedTokens()).isEqualTo(first.size());

                assertThat(context.decode(second)).isEqualTo(DecodeStatus.OK);
                assertThat(context.kv().maxPosition(0)).isEqualTo(held + second.size());
            }
        }
    }

    @Test
    void llamaCppsReportOfAnAbortItWasAskedForIsLoggedAtDebugLevel() {
        Logger llama = (Logger) LoggerFactory.getLogger("llama.cpp");
        ListAppender<ILoggingEvent> log = new ListAppender<>();
        log.start();
        Level level = llama.getLevel();
        llama.setLevel(Level.DEBUG);
        llama.addAppender(log);
        try (LlamaContext context = model.newContext(ContextParams.generation(1024, 1, 1));
             Batch batch = prompt(0, 0)) {
            assertThat(context.decode(batch, () -> true)).isEqualTo(DecodeStatus.ABORTED);
        } finally {
            llama.detachAppender(log);
            llama.setLevel(level);
        }
        // v0.5.0 says that the graph failed, which cells it removed and that the decode failed (code 2); build
        // 4916 says less
        assertThat(log.list).filteredOn(e -> e.getLevel().isGreaterOrEqual(Level.WARN))
                .extracting(ILoggingEvent::getFormattedMessage).isEmpty();
        assertThat(log.list).filteredOn(e -> e.getFormattedMessage().contains("the decode was aborted, as asked"))
                .allSatisfy(e -> assertThat(e.getLevel()).isEqualTo(Level.DEBUG));
    }

    @Test
    void aCheckThatThrowsStopsTheDecodeInsteadOfTheProcess() {
        try (LlamaContext context = model.newContext(ContextParams.generation(1024, 1, 1));
             Batch batch = prompt(0, 0)) {
            DecodeStatus status = context.decode(batch, () -> {
                throw new IllegalStateException("a broken check");
            });
            assertThat(status).isEqualTo(DecodeStatus.ABORTED);
            assertThat(context.kv().maxPosition(0)).isEqualTo(-1);
            assertThat(context.decode(batch)).isEqualTo(DecodeStatus.OK);
        }
    }

    @Test
    void aCheckThatSaysStopWhileTheDecodeRunsStopsItInItsMiddle() {
        try (LlamaContext context = model.newContext(ContextParams.generation(2048, 1, 1))) {
            try (Batch batch = widestPrompt(context)) {
                // go on when asked as it starts, stop when the watcher asks while it runs; a decode of this tiny
                // model may end before the watcher's first turn (a cold start), so a few are tried
                DecodeStatus status = DecodeStatus.OK;
                AtomicInteger polls = new AtomicInteger();
                for (int attempt = 0; attempt < 50 && status == DecodeStatus.OK; attempt++) {
                    context.kv().remove(0, -1, -1);
                    polls.set(0);
                    status = context.decode(batch, () -> polls.incrementAndGet() >= 2);
                }
                assertThat(status).isEqualTo(DecodeStatus.ABORTED);
                assertThat(polls.get()).isEqualTo(2);
                assertThat(context.kv().maxPosition(0)).isEqualTo(-1);
            }
        }
    }

    @Test
    void aCheckAskedAgainByTheThreadThatFlippedItStopsTheDecodeUnderWay() throws Exception {
        try (LlamaContext context = model.newContext(ContextParams.generation(2048, 1, 1))) {
            try (Batch batch = widestPrompt(context)) {
                // only the canceller's own asking says stop (the watcher's turns do not), so the decode stops
                // through recheckAbort or not at all; a decode may end before the canceller runs, so a few are tried
                DecodeStatus status = DecodeStatus.OK;
                for (int attempt = 0; attempt < 50 && status == DecodeStatus.OK; attempt++) {
                    context.kv().remove(0, -1, -1);
                    java.util.concurrent.CountDownLatch started = new java.util.concurrent.CountDownLatch(1);
                    java.util.concurrent.atomic.AtomicReference<Thread> canceller =
                            new java.util.concurrent.atomic.AtomicReference<>();
                    Thread other = Thread.ofPlatform().start(() -> {
                        try {
                            started.await();
                        } catch (InterruptedException e) {
                            return;
                        }
                        canceller.set(Thread.currentThread());
                        context.recheckAbort();
                    });
                    status = context.decode(batch, () -> {
                        started.countDown();
                        return Thread.currentThread() == canceller.get();
                    });
                    other.join();
                }
                assertThat(status).isEqualTo(DecodeStatus.ABORTED);
                assertThat(context.kv().maxPosition(0)).isEqualTo(-1);
            }
        }
    }

    @Test
    void aCheckFlippedByAnotherThreadStopsTheNextDecode() throws Exception {
        try (LlamaContext context = model.newContext(ContextParams.generation(1024, 1, 1));
             Batch batch = prompt(0, 0)) {
            java.util.concurrent.atomic.AtomicBoolean cancelled = new java.util.concurrent.atomic.AtomicBoolean();
            Thread other = Thread.startVirtualThread(() -> cancelled.set(true));
            other.join();
            assertThat(context.decode(batch, cancelled::get)).isEqualTo(DecodeStatus.ABORTED);
        }
    }
}
