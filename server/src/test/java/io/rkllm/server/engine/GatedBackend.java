package io.rkllm.server.engine;

import io.rkllm.server.engine.contract.cache.CacheContents;
import io.rkllm.server.engine.contract.cache.Trim;
import io.rkllm.server.engine.contract.Backend;
import io.rkllm.server.engine.contract.BackendModel;
import io.rkllm.server.engine.contract.Cancellation;
import io.rkllm.server.engine.contract.ChatPrompt;
import io.rkllm.server.engine.contract.EmbeddingEnd;
import io.rkllm.server.engine.contract.EncoderInfo;
import io.rkllm.server.engine.contract.LoadContext;
import io.rkllm.server.engine.contract.ModelLoad;
import io.rkllm.server.engine.contract.PromptTemplate;
import io.rkllm.server.engine.contract.GenerationEvent;
import io.rkllm.server.engine.contract.GenerationStats;
import io.rkllm.server.engine.contract.RuntimeInfo;
import io.rkllm.server.engine.contract.Sampling;
import io.rkllm.server.engine.contract.StopReason;
import io.rkllm.server.engine.contract.TokenSink;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.opentest4j.AssertionFailedError;

/**
 * A backend without native code whose runs block until the test lets them end: each {@code generate} call
 * announces itself ({@link #nextRun()}) and waits for {@link Run#finish()} or its cancellation. It records which
 * thread made each call and in what order ({@link #log()}), and how many generations ran at once. Its models run
 * {@code parallel} generations at once and take {@code .rkllm} files.
 */
public final class GatedBackend implements Backend {
    private static final Duration WAIT = Duration.ofSeconds(10);

    private final int parallel;
    private final BlockingQueue<Run> runs = new LinkedBlockingQueue<>();
    private final BlockingQueue<String> embeds = new LinkedBlockingQueue<>();
    private final ConcurrentLinkedQueue<String> log = new ConcurrentLinkedQueue<>();
    /** Generations in progress on every model of this backend. */
    private final AtomicInteger generatingAnywhere = new AtomicInteger();
    private final AtomicInteger mostAtOnce = new AtomicInteger();
    /** A call other than a generation's made while a generation of the same model ran (never allowed). */
    private final AtomicInteger overlaps = new AtomicInteger();
    /** Embedding runs made while a generation of any model ran (never allowed: chats first). */
    private final AtomicInteger embedsBesideGenerations = new AtomicInteger();

    public GatedBackend(int parallel) {
        this.parallel = parallel;
    }

    /** One generate call in progress. */
    public static final class Run {
        private final String text;
        private final String thread;
        private final Cancellation cancellation;
        private final CountDownLatch end = new CountDownLatch(1);

        private Run(String text, String thread, Cancellation cancellation) {
            this.text = text;
            this.thread = thread;
            this.cancellation = cancellation;
        }

        /** The prompt's new part: which request this is. */
        public String text() {
            return text;
        }

        /** The thread that called generate. */
        public String thread() {
            return thread;
        }

        public boolean cancelled() {
            return cancellation.isCancelled();
        }

        /** Lets the run end with its answer. */
        public void finish() {
            end.countDown();
        }
    }

    /** The next generate call, in the order they began; fails the test when none begins in time. */
    public Run nextRun() throws InterruptedException {
        Run run = runs.poll(WAIT.toMillis(), TimeUnit.MILLISECONDS);
        if (run == null) {
            throw new AssertionFailedError("no generation started within " + WAIT.toSeconds() + " s");
        }
        return run;
    }

    /** Generate calls that began and were not taken with {@link #nextRun()} yet. */
    public int unclaimedRuns() {
        return runs.size();
    }

    /** The next text embedded, on any model of this backend. */
    public String nextEmbed() throws InterruptedException {
        String text = embeds.poll(WAIT.toMillis(), TimeUnit.MILLISECONDS);
        if (text == null) {
            throw new AssertionFailedError("no embedding run within " + WAIT.toSeconds() + " s");
        }
        return text;
    }

    /** Every call, in order: "load <thread>", "generate <text> <thread>", "generated <text>", ... */
    public List<String> log() {
        return List.copyOf(log);
    }

    /** The most generate calls that were in progress at the same moment. */
    public int mostAtOnce() {
        return mostAtOnce.get();
    }

    public int overlaps() {
        return overlaps.get();
    }

    public int embedsBesideGenerations() {
        return embedsBesideGenerations.get();
    }

    /** A chat turn whose new part is {@code text}, as the pipeline would hand it to the engine. */
    public static ChatPrompt prompt(String text) {
        ChatPrompt.Part part = new ChatPrompt.Part("user", text, List.of(), 1);
        return new ChatPrompt("m", new ChatPrompt.Identity(text, List.of(), Trim.NONE, List.of(),
                answer -> Optional.empty()), new ChatPrompt.Setup("", Optional.empty(), false, Optional.empty()),
                new ChatPrompt.Texts(part, part), Optional.empty(),
                new ChatPrompt.Settings(false, Optional.empty(), Optional.empty(), 0, 4096));
    }

    @Override
    public RuntimeInfo info() {
        return new RuntimeInfo("gated test runtime", "test", true, new Sampling(40, 0.9, 0.8, 1.1, 0, 0), false, false,
                ChatPrompt.Form.TEXTS);
    }

    @Override
    public BackendModel load(ModelLoad load, LoadContext context) {
        log.add("load " + load.id() + " " + Thread.currentThread().getName());
        return new Model(load.id());
    }

    private final class Model implements BackendModel {
        private final String id;
        private final AtomicInteger generating = new AtomicInteger();

        Model(String id) {
            this.id = id;
        }

        private void call(String what) {
            if (generating.get() > 0) {
                overlaps.incrementAndGet();
            }
            log.add(what + " " + id + " " + Thread.currentThread().getName());
        }

        @Override
        public int parallelGenerations() {
            call("parallelGenerations");
            return parallel;
        }

        @Override
        public GenerationEvent.End generate(ChatPrompt prompt, int maxTokens, TokenSink sink, Cancellation cancellation) {
            String text = prompt.texts().newPart().text();
            if (text.startsWith("throw")) {
                // a backend breaking its promise not to throw
                throw new IllegalStateException("broken backend");
            }
            String thread = Thread.currentThread().getName();
            generatingAnywhere.incrementAndGet();
            int now = generating.incrementAndGet();
            mostAtOnce.accumulateAndGet(now, Math::max);
            log.add("generate " + text + " " + thread);
            Run run = new Run(text, thread, cancellation);
            try (Cancellation.Binding abort = cancellation.onCancel(run::finish)) {
                runs.add(run);
                try {
                    run.end.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return GenerationEvent.failed("interrupted");
                }
                if (cancellation.isCancelled()) {
                    return new GenerationEvent.Done(StopReason.CANCELLED, GenerationStats.NONE, 0, Optional.empty(), "");
                }
                sink.text("answer to " + text, 3);
                return new GenerationEvent.Done(StopReason.END, new GenerationStats(1, 4, 1, 3), 0, Optional.empty(), "");
            } finally {
                log.add("generated " + text);
                generating.decrementAndGet();
                generatingAnywhere.decrementAndGet();
            }
        }

        @Override
        public CacheContents held() {
            return CacheContents.NOTHING;
        }

        @Override
        public void readyForEmbeddings(Optional<PromptTemplate> template) {
            call("readyForEmbeddings");
        }

        @Override
        public EmbeddingEnd embed(String text, Cancellation cancellation) {
            call("embed " + text);
            if (generatingAnywhere.get() > 0) {
                embedsBesideGenerations.incrementAndGet();
            }
            embeds.add(text);
            return new EmbeddingEnd.Rows(2, List.of(new float[] {1, 0}), GenerationStats.NONE);
        }

        @Override
        public int loadedSlots() {
            return 1;
        }

        @Override
        public Optional<EncoderInfo> encoder() {
            call("encoder");
            return Optional.empty();
        }

        @Override
        public void close() {
            call("close");
        }
    }
}
