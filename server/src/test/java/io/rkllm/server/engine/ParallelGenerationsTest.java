package io.rkllm.server.engine;

import static io.rkllm.server.engine.GatedBackend.prompt;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.rkllm.server.domain.CancelReason;
import io.rkllm.server.domain.Failure;
import io.rkllm.server.domain.FailureException;
import io.rkllm.server.engine.contract.GenerationEvent;
import io.rkllm.server.engine.contract.ModelLoad;
import io.rkllm.server.engine.contract.PromptTemplate;
import io.rkllm.server.engine.contract.Sampling;
import io.rkllm.server.engine.contract.StopReason;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.opentest4j.AssertionFailedError;

/**
 * The engine with a model that runs several generations at once (a llama.cpp context with several sequences),
 * on a backend whose runs block until the test ends them: no native code, no sleeps. Every guarantee of the
 * one-at-a-time engine holds per model with N slots instead of one.
 */
class ParallelGenerationsTest {
    private static final Duration WAIT = Duration.ofSeconds(10);

    private final GenerationsFirst turns = new GenerationsFirst();
    /** One permit per time a worker said it has nothing queued or running. */
    private final Semaphore idle = new Semaphore(0);
    private final List<ModelWorker> workers = new ArrayList<>();

    @AfterEach
    void stopWorkers() {
        for (ModelWorker worker : workers) {
            worker.cancelRunning(CancelReason.SHUTDOWN);
            worker.close();
        }
        for (ModelWorker worker : workers) {
            worker.stopped().orTimeout(WAIT.toSeconds(), TimeUnit.SECONDS).join();
        }
    }

    @Test
    void threeGenerationsRunAtOnceEachOnItsOwnThreadAndAFourthStartsWhenOneEnds() throws Exception {
        GatedBackend backend = new GatedBackend(3);
        ModelWorker worker = worker("m", backend, 4);
        assertThat(worker.parallelGenerations()).isEqualTo(3);
        Map<String, Generation> chats = submit(worker, Priority.INTERACTIVE, "c1", "c2", "c3", "c4");
        Map<String, GatedBackend.Run> runs = runs(backend, 3);
        assertThat(runs).containsOnlyKeys("c1", "c2", "c3");
        assertThat(runs.values()).extracting(GatedBackend.Run::thread).doesNotHaveDuplicates()
                .allMatch(t -> t.matches("rkllm-model-m-gen-[123]"));
        assertThat(worker.running()).isEqualTo(3);
        assertThat(worker.queued()).isEqualTo(1);
        assertThat(backend.unclaimedRuns()).as("the fourth waits for a free slot").isZero();

        runs.get("c2").finish();
        assertDone(chats.get("c2"), "answer to c2");
        GatedBackend.Run fourth = backend.nextRun();
        assertThat(fourth.text()).isEqualTo("c4");
        assertThat(worker.queued()).isZero();
        assertThat(worker.running()).isEqualTo(3);

        runs.get("c1").finish();
        runs.get("c3").finish();
        fourth.finish();
        for (String c : List.of("c1", "c3", "c4")) {
            assertDone(chats.get(c), "answer to " + c);
        }
        awaitIdle();
        assertThat(worker.running()).isZero();
        assertThat(worker.idle()).isTrue();
        assertThat(turns.generations()).isZero();
        assertThat(backend.mostAtOnce()).isEqualTo(3);
        assertThat(backend.log()).contains("load m rkllm-model-m", "parallelGenerations m rkllm-model-m",
                "encoder m rkllm-model-m");
    }

    @Test
    void aRunThatThrowsEndsItsGenerationAsFailedAndTheNextIsServed() throws Exception {
        GatedBackend backend = new GatedBackend(1);
        ModelWorker worker = worker("m", backend, 4);
        Map<String, Generation> chats = submit(worker, Priority.INTERACTIVE, "throw me", "c2");
        GenerationEvent.Failed failed = assertEnds(chats.get("throw me"), GenerationEvent.Failed.class);
        assertThat(failed.failure()).isInstanceOfSatisfying(Failure.RuntimeFailed.class,
                f -> assertThat(f.message()).contains("broken backend"));
        backend.nextRun().finish();
        assertDone(chats.get("c2"), "answer to c2");
    }

    @Test
    void aGenerationCancelledAfterLeavingTheQueueButBeforeItsRunStillEnds() throws Exception {
        GatedBackend backend = new GatedBackend(1);
        ModelWorker worker = worker("m", backend, 4);
        Generation job = new Generation(worker.name(), worker.intake().turns(), worker.intake()::dequeue, Priority.INTERACTIVE, 1,
                prompt("late"), 0);
        job.cancel(CancelReason.QUEUE_TIMEOUT);
        job.execute(null);
        assertFailed(job, CancelReason.QUEUE_TIMEOUT);
        assertThat(backend.unclaimedRuns()).isZero();
    }

    @Test
    void aModelThatRunsOneGenerationAtATimeRunsThemOnItsWorkerThreadInOrder() throws Exception {
        GatedBackend backend = new GatedBackend(1);
        ModelWorker worker = worker("m", backend, 4);
        assertThat(worker.parallelGenerations()).isEqualTo(1);
        Map<String, Generation> chats = submit(worker, Priority.INTERACTIVE, "c1", "c2");
        GatedBackend.Run first = backend.nextRun();
        assertThat(first.text()).isEqualTo("c1");
        assertThat(first.thread()).isEqualTo("rkllm-model-m");
        assertThat(worker.running()).isEqualTo(1);
        assertThat(worker.queued()).isEqualTo(1);
        assertThat(backend.unclaimedRuns()).isZero();
        first.finish();
        GatedBackend.Run second = backend.nextRun();
        assertThat(second.text()).isEqualTo("c2");
        assertThat(second.thread()).isEqualTo("rkllm-model-m");
        second.finish();
        assertDone(chats.get("c1"), "answer to c1");
        assertDone(chats.get("c2"), "answer to c2");
        assertThat(backend.mostAtOnce()).isEqualTo(1);
    }

    @Test
    void aFreedSlotGoesToTheOldestChatBeforeAnyBackgroundTask() throws Exception {
        GatedBackend backend = new GatedBackend(3);
        ModelWorker worker = worker("m", backend, 8);
        Map<String, Generation> all = new HashMap<>(submit(worker, Priority.INTERACTIVE, "c1", "c2", "c3"));
        Map<String, GatedBackend.Run> runs = runs(backend, 3);
        all.putAll(submit(worker, Priority.BACKGROUND, "b1"));
        all.putAll(submit(worker, Priority.INTERACTIVE, "c4", "c5"));
        assertThat(worker.queued()).isEqualTo(3);

        List<String> order = new ArrayList<>();
        for (String ending : List.of("c1", "c2", "c3")) {
            runs.get(ending).finish();
            GatedBackend.Run next = backend.nextRun();
            order.add(next.text());
            runs.put(next.text(), next);
        }
        assertThat(order).containsExactly("c4", "c5", "b1");
        runs.values().forEach(GatedBackend.Run::finish);
        for (Map.Entry<String, Generation> g : all.entrySet()) {
            assertDone(g.getValue(), "answer to " + g.getKey());
        }
    }

    @Test
    void aChatPreemptsTheLastStartedBackgroundTaskOnlyWhenNoSlotIsFree() throws Exception {
        GatedBackend backend = new GatedBackend(3);
        ModelWorker worker = worker("m", backend, 8);
        Map<String, Generation> tasks = submit(worker, Priority.BACKGROUND, "b1", "b2");
        Map<String, GatedBackend.Run> runs = runs(backend, 2);
        Map<String, Generation> chats = new HashMap<>(submit(worker, Priority.INTERACTIVE, "c1"));
        runs.putAll(runs(backend, 1));
        assertThat(tasks.values()).as("a free slot: nothing gives way").allMatch(t -> t.cancelReason().isEmpty());

        chats.putAll(submit(worker, Priority.INTERACTIVE, "c2"));
        assertThat(tasks.get("b2").cancelReason()).contains(CancelReason.PREEMPTED);
        assertThat(tasks.get("b1").cancelReason()).isEmpty();
        assertFailed(tasks.get("b2"), CancelReason.PREEMPTED);
        GatedBackend.Run c2 = backend.nextRun();
        assertThat(c2.text()).isEqualTo("c2");
        assertThat(runs.get("b1").cancelled()).isFalse();

        runs.get("b1").finish();
        runs.get("c1").finish();
        c2.finish();
        assertDone(tasks.get("b1"), "answer to b1");
        assertDone(chats.get("c1"), "answer to c1");
        assertDone(chats.get("c2"), "answer to c2");
    }

    @Test
    void cancellingAQueuedGenerationFreesItsPlaceAndCancellingARunningOneAbortsOnlyIt() throws Exception {
        GatedBackend backend = new GatedBackend(3);
        ModelWorker worker = worker("m", backend, 1);
        Map<String, Generation> chats = new HashMap<>(submit(worker, Priority.INTERACTIVE, "c1", "c2", "c3", "c4"));
        Map<String, GatedBackend.Run> runs = runs(backend, 3);
        assertThat(turns.generations()).isEqualTo(4);

        chats.get("c4").cancel(CancelReason.CLIENT_GONE);
        assertFailed(chats.get("c4"), CancelReason.CLIENT_GONE);
        assertThat(worker.queued()).isZero();
        assertThat(turns.generations()).as("a cancelled queued generation holds no turn").isEqualTo(3);
        chats.putAll(submit(worker, Priority.INTERACTIVE, "c5"));

        chats.get("c2").cancel(CancelReason.CLIENT_GONE);
        GenerationEvent.Done aborted = assertEnds(chats.get("c2"), GenerationEvent.Done.class);
        assertThat(aborted.reason()).isEqualTo(StopReason.CANCELLED);
        GatedBackend.Run next = backend.nextRun();
        assertThat(next.text()).isEqualTo("c5");
        // a watchdog's cancel is an error for its reader
        chats.get("c3").cancel(CancelReason.TOTAL_TIMEOUT);
        assertFailed(chats.get("c3"), CancelReason.TOTAL_TIMEOUT);
        assertThat(runs.get("c1").cancelled()).isFalse();
        assertThat(next.cancelled()).isFalse();

        runs.get("c1").finish();
        next.finish();
        assertDone(chats.get("c1"), "answer to c1");
        assertDone(chats.get("c5"), "answer to c5");
        awaitIdle();
        assertThat(turns.generations()).isZero();
        assertThat(backend.log()).noneMatch(line -> line.startsWith("generate c4"));
    }

    @Test
    void theQueueLimitCountsWhatWaitsBeyondTheGenerationsThatCanRun() throws Exception {
        GatedBackend backend = new GatedBackend(3);
        ModelWorker worker = worker("m", backend, 1);
        // four places at once, before any work is submitted: three will run, one waits
        List<Reservation> places = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            places.add(worker.reserve(Priority.INTERACTIVE));
        }
        assertQueueFull(worker);
        Map<String, Generation> chats = new HashMap<>();
        for (int i = 0; i < 4; i++) {
            chats.put("c" + (i + 1), places.get(i).submit(prompt("c" + (i + 1)), 0));
        }
        Map<String, GatedBackend.Run> runs = runs(backend, 3);
        assertThat(worker.running()).isEqualTo(3);
        assertThat(worker.queued()).isEqualTo(1);
        assertQueueFull(worker);

        GatedBackend.Run first = runs.values().iterator().next();
        first.finish();
        GatedBackend.Run fourth = backend.nextRun();
        assertThat(fourth.text()).isEqualTo("c4");
        Reservation another = worker.reserve(Priority.INTERACTIVE);
        assertQueueFull(worker);
        another.release();
        assertThat(worker.queued()).isZero();

        runs.values().forEach(GatedBackend.Run::finish);
        fourth.finish();
        for (Map.Entry<String, Generation> g : chats.entrySet()) {
            assertDone(g.getValue(), "answer to " + g.getKey());
        }
    }

    @Test
    void unloadingCancelsWhatWaitsAndClosesTheModelOnItsWorkerThreadOnceEveryRunningGenerationEnded()
            throws Exception {
        GatedBackend backend = new GatedBackend(3);
        ModelRegistry registry = new ModelRegistry(Backends.of("gated", backend), new RegistrySettings(2, 4, Duration.ZERO,
                WAIT), Clock.systemUTC(), new ModelListener() {
                });
        try {
            ModelWorker worker = registry.acquire(load("m"), chosen -> { }).worker();
            Map<String, Generation> chats = submit(worker, Priority.INTERACTIVE, "c1", "c2", "c3", "c4");
            Map<String, GatedBackend.Run> runs = runs(backend, 3);
            CompletableFuture<Boolean> unloaded = CompletableFuture.supplyAsync(() -> registry.unload("m", "test"));
            assertFailed(chats.get("c4"), CancelReason.UNLOADED);
            assertThatThrownBy(() -> worker.reserve(Priority.INTERACTIVE)).isInstanceOfSatisfying(
                    FailureException.class, e -> assertThat(e.failure()).isInstanceOf(Failure.ModelUnloading.class));

            runs.get("c1").finish();
            runs.get("c2").finish();
            assertDone(chats.get("c1"), "answer to c1");
            assertDone(chats.get("c2"), "answer to c2");
            assertThat(unloaded).as("c3 still runs").isNotDone();
            assertThat(backend.log()).noneMatch(line -> line.startsWith("close"));

            runs.get("c3").finish();
            assertThat(unloaded.get(WAIT.toSeconds(), TimeUnit.SECONDS)).isTrue();
            assertDone(chats.get("c3"), "answer to c3");
            List<String> log = backend.log();
            assertThat(log.getLast()).isEqualTo("close m rkllm-model-m");
            assertThat(log).contains("generated c1", "generated c2", "generated c3");
            assertThat(backend.overlaps()).isZero();
        } finally {
            registry.shutdown(Duration.ZERO);
        }
    }

    @Test
    void aShutdownTellsWhatWaitsThatTheServerIsGoingAwayNotToRetryTheModel() throws Exception {
        GatedBackend backend = new GatedBackend(3);
        ModelRegistry registry = new ModelRegistry(Backends.of("gated", backend),
                new RegistrySettings(2, 4, Duration.ZERO, WAIT), Clock.systemUTC(), new ModelListener() {
                });
        ModelWorker worker = registry.acquire(load("m"), chosen -> { }).worker();
        Map<String, Generation> chats = submit(worker, Priority.INTERACTIVE, "c1", "c2", "c3", "c4");
        Map<String, GatedBackend.Run> runs = runs(backend, 3);
        CompletableFuture<Void> stopped = CompletableFuture.runAsync(() -> registry.shutdown(WAIT));
        assertFailed(chats.get("c4"), CancelReason.SHUTDOWN);
        runs.values().forEach(GatedBackend.Run::finish);
        stopped.get(WAIT.toSeconds(), TimeUnit.SECONDS);
        assertDone(chats.get("c1"), "answer to c1");
    }

    @Test
    void aPlaceAskedOfAModelWhoseLoadFailedGetsTheLoadsFailureNotAnUnloadToRetry() throws Exception {
        // a place is taken as a model is chosen, before its load ends: a load that failed first is the answer (a
        // retry would load it once more)
        ModelWorker broken = new ModelWorker("broken", "test", 4, () -> {
            throw new FailureException(new Failure.LoadFailed("broken", "not enough NPU memory"));
        }, turns, () -> { });
        broken.stopped().get(WAIT.toSeconds(), TimeUnit.SECONDS);
        assertThatThrownBy(() -> broken.reserve(Priority.INTERACTIVE)).isInstanceOfSatisfying(FailureException.class,
                e -> assertThat(e.failure()).isEqualTo(new Failure.LoadFailed("broken", "not enough NPU memory")));
    }

    @Test
    void anEmbeddingRunOfAnotherModelWaitsUntilNoGenerationWaitsOrRuns() throws Exception {
        GatedBackend backend = new GatedBackend(3);
        ModelWorker chat = worker("chat", backend, 4);
        ModelWorker embedder = worker("embedder", backend, 4);
        Map<String, Generation> chats = new HashMap<>(submit(chat, Priority.INTERACTIVE, "c1", "c2", "c3"));
        Map<String, GatedBackend.Run> runs = runs(backend, 3);
        Embedding embedding = embedder.reserve(Priority.BACKGROUND).submit(work("doc"));
        assertThat(embedding.poll(WAIT)).as("taken by its worker, which waits for the NPU")
                .isInstanceOf(EmbeddingEvent.Started.class);
        chats.putAll(submit(chat, Priority.INTERACTIVE, "c4"));
        assertThat(turns.generations()).isEqualTo(4);

        runs.get("c1").finish();
        GatedBackend.Run fourth = backend.nextRun();
        runs.get("c2").finish();
        runs.get("c3").finish();
        fourth.finish();
        assertThat(backend.nextEmbed()).isEqualTo("doc");
        assertThat(embedding.poll(WAIT)).isEqualTo(new EmbeddingEvent.RunStarted(0));
        assertThat(embedding.poll(WAIT)).isEqualTo(new EmbeddingEvent.RunEnded(0));
        EmbeddingEvent end = embedding.poll(WAIT);
        assertThat(end).isInstanceOfSatisfying(EmbeddingEvent.Done.class, d -> assertThat(d.vectors()).hasSize(1));
        for (Map.Entry<String, Generation> g : chats.entrySet()) {
            assertDone(g.getValue(), "answer to " + g.getKey());
        }
        List<String> log = backend.log();
        int embedAt = log.indexOf("embed doc embedder rkllm-model-embedder");
        assertThat(embedAt).isPositive();
        for (String c : List.of("c1", "c2", "c3", "c4")) {
            assertThat(log.indexOf("generated " + c)).isLessThan(embedAt);
        }
        assertThat(backend.embedsBesideGenerations()).isZero();
    }

    @Test
    void aModelsOwnEmbeddingRequestRunsOnItsWorkerThreadWhenNoneOfItsGenerationsRuns() throws Exception {
        GatedBackend backend = new GatedBackend(3);
        ModelWorker worker = worker("m", backend, 4);
        Map<String, Generation> chats = submit(worker, Priority.INTERACTIVE, "c1", "c2");
        Map<String, GatedBackend.Run> runs = runs(backend, 2);
        Embedding embedding = worker.reserve(Priority.BACKGROUND).submit(work("doc"));
        assertThat(worker.queued()).as("a free slot, but an embedding request runs alone").isEqualTo(1);

        runs.get("c1").finish();
        runs.get("c2").finish();
        assertThat(backend.nextEmbed()).isEqualTo("doc");
        assertThat(embedding.poll(WAIT)).isInstanceOf(EmbeddingEvent.Started.class);
        assertThat(embedding.poll(WAIT)).isEqualTo(new EmbeddingEvent.RunStarted(0));
        assertThat(embedding.poll(WAIT)).isEqualTo(new EmbeddingEvent.RunEnded(0));
        assertThat(embedding.poll(WAIT)).isInstanceOf(EmbeddingEvent.Done.class);
        assertDone(chats.get("c1"), "answer to c1");
        assertDone(chats.get("c2"), "answer to c2");
        List<String> log = backend.log();
        int readyAt = log.indexOf("readyForEmbeddings m rkllm-model-m");
        assertThat(readyAt).isGreaterThan(Math.max(log.indexOf("generated c1"), log.indexOf("generated c2")));
        assertThat(log).contains("embed doc m rkllm-model-m");
        assertThat(backend.overlaps()).isZero();
    }

    private ModelWorker worker(String name, GatedBackend backend, int maxQueued) {
        ModelWorker worker = new ModelWorker(name, "gated test runtime", maxQueued,
                () -> backend.load(load(name), null), turns, idle::release);
        workers.add(worker);
        worker.loaded().orTimeout(WAIT.toSeconds(), TimeUnit.SECONDS).join();
        awaitIdle(); // the one after the load
        return worker;
    }

    private static ModelLoad load(String id) {
        return new ModelLoad(id, "gated", Path.of(id + ".rkllm"), "",
                new ModelLoad.Runs(4096, new Sampling(40, 0.9, 0.8, 1.1, 0, 0), false), new ModelLoad.Copies(1, 100, 0),
                Optional.empty());
    }

    private static Map<String, Generation> submit(ModelWorker worker, Priority priority, String... texts) {
        Map<String, Generation> submitted = new HashMap<>();
        for (String text : texts) {
            submitted.put(text, worker.reserve(priority).submit(prompt(text), 0));
        }
        return submitted;
    }

    /** The next {@code count} runs to begin, by their text. */
    private static Map<String, GatedBackend.Run> runs(GatedBackend backend, int count) throws InterruptedException {
        Map<String, GatedBackend.Run> runs = new HashMap<>();
        for (int i = 0; i < count; i++) {
            GatedBackend.Run run = backend.nextRun();
            runs.put(run.text(), run);
        }
        return runs;
    }

    private static EmbeddingWork work(String text) {
        return new EmbeddingWork() {
            @Override
            public Optional<PromptTemplate> template() {
                return Optional.empty();
            }

            @Override
            public List<String> prompts() {
                return List.of(text);
            }

            @Override
            public float[] pool(int width, List<float[]> rows) {
                return rows.getFirst();
            }
        };
    }

    private void awaitIdle() {
        try {
            assertThat(idle.tryAcquire(WAIT.toSeconds(), TimeUnit.SECONDS)).as("the worker became idle").isTrue();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionFailedError("interrupted");
        }
    }

    private static void assertQueueFull(ModelWorker worker) {
        assertThatThrownBy(() -> worker.reserve(Priority.INTERACTIVE)).isInstanceOfSatisfying(FailureException.class,
                e -> assertThat(e.failure()).isInstanceOf(Failure.QueueFull.class));
    }

    private static void assertDone(Generation generation, String answer) throws InterruptedException {
        StringBuilder text = new StringBuilder();
        GenerationEvent.Done done = assertEnds(generation, GenerationEvent.Done.class, text);
        assertThat(done.reason()).isEqualTo(StopReason.END);
        assertThat(text).hasToString(answer);
    }

    private static void assertFailed(Generation generation, CancelReason reason) throws InterruptedException {
        GenerationEvent.Failed failed = assertEnds(generation, GenerationEvent.Failed.class);
        assertThat(failed.failure()).isInstanceOfSatisfying(Failure.Cancelled.class,
                c -> assertThat(c.reason()).isEqualTo(reason));
    }

    private static <T extends GenerationEvent> T assertEnds(Generation generation, Class<T> end)
            throws InterruptedException {
        return assertEnds(generation, end, new StringBuilder());
    }

    /** Reads the generation's events to its end, which must be of {@code end}; its text goes to {@code text}. */
    private static <T extends GenerationEvent> T assertEnds(Generation generation, Class<T> end, StringBuilder text)
            throws InterruptedException {
        while (true) {
            GenerationEvent event = generation.poll(WAIT);
            if (event == null) {
                throw new AssertionFailedError("the generation did not end within " + WAIT.toSeconds() + " s");
            }
            switch (event) {
                case GenerationEvent.Started started -> {
                }
                case GenerationEvent.Text t -> text.append(t.text());
                default -> {
                    assertThat(event).isInstanceOf(end);
                    return end.cast(event);
                }
            }
        }
    }
}
