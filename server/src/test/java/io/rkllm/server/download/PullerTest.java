package io.rkllm.server.download;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import io.rkllm.llama.gguf.TinyLlama;
import io.rkllm.server.models.DiscoveryResult;
import io.rkllm.server.models.ModelDescriptor;
import io.rkllm.server.models.TestDiscovery;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Pulls from the stand-in Hub on loopback into a real models directory, and what discovery then finds there. */
class PullerTest {
    private static final String REPO = "tiny/Tiny-Chat-GGUF";

    @TempDir
    Path dir;

    private StandInHub hub;
    private Path models;
    private byte[] q4;
    private byte[] q8;

    @BeforeEach
    void startHub() throws IOException {
        models = dir.resolve("models");
        q4 = tinyModel(42);
        q8 = tinyModel(43);
        hub = stocked(StandInHub.start());
    }

    /** A Hub with {@link #REPO}. */
    private StandInHub stocked(StandInHub hub) {
        hub.repo(REPO).file("README.md", "# Tiny chat\n".getBytes(StandardCharsets.UTF_8))
                .file("Tiny-Chat-Q8_0.gguf", q8).file("Tiny-Chat-Q4_K_M.gguf", q4)
                .file("mmproj-Tiny-Chat-F16.gguf", bytes(3000, 1));
        return hub;
    }

    @AfterEach
    void stopHub() {
        hub.close();
    }

    private byte[] tinyModel(long seed) throws IOException {
        Path file = dir.resolve("tiny-" + seed + ".gguf");
        TinyLlama.Options o = TinyLlama.Options.chat();
        TinyLlama.write(file, new TinyLlama.Options(seed, o.embeddingLength(), o.layers(), o.heads(), o.kvHeads(),
                o.feedForwardLength(), o.contextLength(), o.merges(), o.type(), o.embedding(), o.declaredLayers()));
        return Files.readAllBytes(file);
    }

    private static byte[] bytes(int size, long seed) {
        byte[] b = new byte[size];
        new Random(seed).nextBytes(b);
        return b;
    }

    private Puller puller(Map<String, String> environment, Board board, DiskSpace disk) throws PullException {
        Map<String, String> env = new java.util.HashMap<>(environment);
        env.put("HF_ENDPOINT", hub.endpoint());
        env.putIfAbsent("RKLLM_REGISTRY", "http://127.0.0.1:9"); // no Ollama registry: a name of two parts is the Hub's
        return new Puller(() -> Hub.fromEnvironment(env, "test"),
                new ModelsDirectory(models, disk, List.of(".rkllm", ".gguf")), board,
                new Puller.Settings(3, Duration.ZERO, Duration.ofSeconds(30)));
    }

    private Puller puller() throws PullException {
        return puller(Map.of(), Board.UNKNOWN, DiskSpace.SYSTEM);
    }

    private PullException failure(Puller puller, String model) {
        return failure(puller, model, PullProgress.NONE);
    }

    private PullException failure(Puller puller, String model, PullProgress progress) {
        return catchThrowableOfType(PullException.class, () -> puller.pull(model, progress));
    }

    /** A progress that does {@code then} once a file has {@code bytes} on disk: a fault from a known offset on. */
    private static PullProgress at(long bytes, Runnable then) {
        AtomicBoolean done = new AtomicBoolean();
        return new PullProgress() {
            @Override
            public void transfer(HubFile file, long completed) {
                if (completed >= bytes && !done.getAndSet(true)) {
                    then.run();
                }
            }
        };
    }

    private Path partialOf(byte[] file) {
        return models.resolve(".pull/sha256-" + StandInHub.hex("SHA-256", file) + ".partial");
    }

    /** Every file under the models directory, hidden ones too, relative and sorted. */
    private List<String> tree() throws IOException {
        if (!Files.exists(models)) {
            return List.of();
        }
        try (Stream<Path> walk = Files.walk(models)) {
            return walk.filter(p -> !p.equals(models)).map(p -> models.relativize(p).toString()).sorted().toList();
        }
    }

    @Test
    void q4KMWhenNoQuantisationIsNamedIntoItsOwnFolderWhichDiscoveryServes() throws Exception {
        PullResult result = puller().pull("hf.co/" + REPO, PullProgress.NONE);

        Path folder = models.resolve("Tiny-Chat-Q4_K_M");
        assertThat(result.folder()).isEqualTo(folder);
        assertThat(result.model()).isEqualTo(folder.resolve("Tiny-Chat-Q4_K_M.gguf"));
        assertThat(result.downloaded()).isEqualTo(q4.length);
        assertThat(Files.readAllBytes(result.model())).isEqualTo(q4);
        // nothing else: no projector, no README, no partial download left, the receipt hidden
        assertThat(tree()).containsExactly("Tiny-Chat-Q4_K_M", "Tiny-Chat-Q4_K_M/.pull.json",
                "Tiny-Chat-Q4_K_M/Tiny-Chat-Q4_K_M.gguf");
        DiscoveryResult found = TestDiscovery.standard().discover(models);
        assertThat(found.errors()).isEmpty();
        assertThat(found.models()).extracting(ModelDescriptor::id).containsExactly("tiny-chat-q4_k_m");
        assertThat(found.models().getFirst().facts().format()).isEqualTo("gguf");
    }

    @Test
    void aQuantisationNamedInAnyCaseAndEveryFormOfTheName() throws Exception {
        assertThat(puller().pull(REPO + ":q8_0", PullProgress.NONE).model().getFileName())
                .hasToString("Tiny-Chat-Q8_0.gguf");
        assertThat(puller().pull("https://huggingface.co/" + REPO + "/resolve/main/Tiny-Chat-Q4_K_M.gguf",
                PullProgress.NONE).model().getFileName()).hasToString("Tiny-Chat-Q4_K_M.gguf");
        assertThat(Files.readAllBytes(models.resolve("Tiny-Chat-Q8_0/Tiny-Chat-Q8_0.gguf"))).isEqualTo(q8);
    }

    @Test
    void aQuantisationTheRepositoryDoesNotHaveListsThoseItHasAndWritesNothing() throws Exception {
        PullException e = failure(puller(), "hf.co/" + REPO + ":Q5_K_S");

        assertThat(e.kind()).isEqualTo(PullException.Kind.NOT_FOUND);
        assertThat(e.getMessage()).isEqualTo(REPO + " has no Q5_K_S quantisation; it has Q8_0, Q4_K_M (pull " + REPO
                + ":Q8_0)");
        assertThat(tree()).isEmpty();
        assertThat(hub.downloads()).isEmpty();
    }

    @Test
    void aModelSplitIntoPartsComesWholeFromItsFolder() throws Exception {
        byte[] p2 = bytes(5000, 2);
        byte[] p3 = bytes(7000, 3);
        hub.repo("tiny/Big-GGUF").file("Q4_K_M/Big-Q4_K_M-00001-of-00003.gguf", q4)
                .file("Q4_K_M/Big-Q4_K_M-00002-of-00003.gguf", p2).file("Q4_K_M/Big-Q4_K_M-00003-of-00003.gguf", p3)
                .file("Q8_0/Big-Q8_0.gguf", q8);

        PullResult result = puller().pull("tiny/Big-GGUF", PullProgress.NONE);

        assertThat(result.model()).isEqualTo(models.resolve("Big-Q4_K_M/Big-Q4_K_M-00001-of-00003.gguf"));
        assertThat(result.downloaded()).isEqualTo(q4.length + p2.length + p3.length);
        assertThat(Files.readAllBytes(models.resolve("Big-Q4_K_M/Big-Q4_K_M-00003-of-00003.gguf"))).isEqualTo(p3);
        assertThat(tree()).containsExactly("Big-Q4_K_M", "Big-Q4_K_M/.pull.json",
                "Big-Q4_K_M/Big-Q4_K_M-00001-of-00003.gguf", "Big-Q4_K_M/Big-Q4_K_M-00002-of-00003.gguf",
                "Big-Q4_K_M/Big-Q4_K_M-00003-of-00003.gguf");
    }

    @Test
    void aTransferCutInTheMiddleIsResumedWithARangeRequest() throws Exception {
        hub.cutTransfers(1000, 1);
        List<String> said = new java.util.ArrayList<>();

        PullResult result = puller().pull(REPO, new PullProgress() {
            @Override
            public void stopped(HubFile file, long completed, String why, Duration wait) {
                said.add(file.name() + " stopped at " + completed + ", again in " + wait.toMillis() + " ms");
            }
        });

        assertThat(Files.readAllBytes(result.model())).isEqualTo(q4);
        assertThat(hub.downloads()).extracting(StandInHub.Seen::range)
                .containsExactly(Optional.empty(), Optional.of("bytes=1000-"));
        assertThat(result.downloaded()).isEqualTo(q4.length);
        // the wait is said, so that a progress bar that stops moving does not look stuck
        assertThat(said).containsExactly("Tiny-Chat-Q4_K_M.gguf stopped at 1000, again in 0 ms");
    }

    @Test
    void aTransferCutEveryTimeKeepsItsPartHiddenAndTheNextPullResumesIt() throws Exception {
        hub.cutTransfers(1000, 3);

        PullException e = failure(puller(), REPO);

        assertThat(e.kind()).isEqualTo(PullException.Kind.BAD_GATEWAY);
        assertThat(e.resumable()).isTrue();
        assertThat(e.getMessage()).startsWith("the transfer of Tiny-Chat-Q4_K_M.gguf was cut at 3000 of " + q4.length
                + " bytes, 3 times (").endsWith("); pull again to resume from there");
        // no model folder: only the hidden partial download, which discovery does not see
        assertThat(tree()).containsExactly(".pull", ".pull/sha256-" + StandInHub.hex("SHA-256", q4) + ".partial");
        assertThat(TestDiscovery.standard().discover(models).models()).isEmpty();

        PullResult result = puller().pull(REPO, PullProgress.NONE);

        assertThat(hub.downloads().getLast().range()).contains("bytes=3000-");
        assertThat(result.downloaded()).isEqualTo(q4.length - 3000);
        assertThat(Files.readAllBytes(result.model())).isEqualTo(q4);
        assertThat(tree()).doesNotContain(".pull");
    }

    @Test
    void aPartialAnotherPullIsWritingIsNeitherTouchedNorDiscarded() throws Exception {
        hub.cutTransfers(1000, 3);
        failure(puller(), REPO);
        Path partial = partialOf(q4);
        // another process's pull of the same file holds its partial (rkllm-server pull beside the server's route)
        try (java.nio.channels.FileChannel other = java.nio.channels.FileChannel.open(partial,
                java.nio.file.StandardOpenOption.WRITE); java.nio.channels.FileLock held = other.lock()) {

            PullException e = failure(puller(), REPO);

            assertThat(e.kind()).isEqualTo(PullException.Kind.CONFLICT);
            assertThat(e.getMessage()).contains("is being downloaded by another pull right now");
            assertThat(Files.size(partial)).as("the other pull's bytes").isEqualTo(3000);
            assertThat(models.resolve(ModelsDirectory.STAGING).toFile().list()).hasSize(1);
            // nor does a prune take it, however old it looks
            Files.setLastModifiedTime(partial, java.nio.file.attribute.FileTime.from(
                    java.time.Instant.now().minus(Duration.ofDays(30))));
            assertThat(new ModelsDirectory(models, DiskSpace.SYSTEM, List.of(".gguf"))
                    .pruneStale(ModelsDirectory.STALE_PARTIAL, java.time.Instant.now())).isEmpty();
            assertThat(partial).exists();
        }
    }

    @Test
    void aHubWhoseNameDoesNotResolveIsSaidSoNotByItsBareName() {
        // the JDK's UnknownHostException says only the host: offline, a user read "cannot reach ...: huggingface.co"
        assertThat(HubClient.why(new java.net.UnknownHostException("huggingface.co")))
                .isEqualTo("the name huggingface.co does not resolve (no network, or no DNS)");
        assertThat(HubClient.why(new java.net.ConnectException("Connection refused"))).isEqualTo("Connection refused");
    }

    @ParameterizedTest
    @ValueSource(ints = {503, 429, 500, 502, 504})
    void aHubThatIsBusyWhenAskedToResumeIsAskedAgain(int status) throws Exception {
        hub.cutTransfers(1000, 1);

        PullResult result = puller().pull(REPO, at(1000, () -> hub.downloadFault(Integer.toString(status), 1)));

        assertThat(Files.readAllBytes(result.model())).isEqualTo(q4);
        assertThat(hub.downloads()).extracting(StandInHub.Seen::range)
                .containsExactly(Optional.empty(), Optional.of("bytes=1000-"), Optional.of("bytes=1000-"));
        assertThat(result.downloaded()).isEqualTo(q4.length);
    }

    @Test
    void aHubThatIsBusyAtTheFirstRequestIsAskedAgainAndOneThatStaysBusyLeavesNothing() throws Exception {
        hub.downloadFault("503", 2);

        PullResult result = puller().pull(REPO, PullProgress.NONE);

        assertThat(Files.readAllBytes(result.model())).isEqualTo(q4);
        assertThat(hub.downloads()).hasSize(3);

        hub.downloadFault("503", 3);
        PullException e = failure(puller(), REPO + ":Q8_0");

        assertThat(e.kind()).isEqualTo(PullException.Kind.BAD_GATEWAY);
        assertThat(e.getMessage()).matches("the transfer of Tiny-Chat-Q8_0\\.gguf could not start, 3 attempts \\(the"
                + " Hub's storage at http://127\\.0\\.0\\.1:\\d+ answered 503 \\(stand-in fault 503\\) for"
                + " Tiny-Chat-Q8_0\\.gguf\\); pull again later");
        assertThat(tree()).doesNotContain(".pull").doesNotContain("Tiny-Chat-Q8_0");
    }

    @Test
    void aHubGoneAfterACutKeepsThePartialAndTheNextPullResumesItWhenTheHubIsBack() throws Exception {
        hub.cutTransfers(1000, 1);
        String endpoint = hub.endpoint();

        PullException e = failure(puller(), REPO, at(1000, hub::close));

        assertThat(e.kind()).isEqualTo(PullException.Kind.BAD_GATEWAY);
        assertThat(e.resumable()).isTrue();
        assertThat(e.getMessage()).startsWith("the transfer of Tiny-Chat-Q4_K_M.gguf stopped at 1000 of " + q4.length
                + " bytes and could not be resumed, 3 attempts (cannot reach the Hub at " + endpoint + ": ")
                .endsWith("); the bytes downloaded are kept, and the next pull resumes from there");
        assertThat(tree()).containsExactly(".pull", models.relativize(partialOf(q4)).toString());
        assertThat(Files.size(partialOf(q4))).isEqualTo(1000);
        assertThat(TestDiscovery.standard().discover(models).models()).isEmpty();

        hub = stocked(StandInHub.start()); // back, at another address (the partial is named by its digest)
        PullResult result = puller().pull(REPO, PullProgress.NONE);

        assertThat(hub.downloads()).extracting(StandInHub.Seen::range).containsExactly(Optional.of("bytes=1000-"));
        assertThat(result.downloaded()).isEqualTo(q4.length - 1000);
        assertThat(Files.readAllBytes(result.model())).isEqualTo(q4);
        assertThat(tree()).doesNotContain(".pull");
    }

    @ParameterizedTest
    @ValueSource(ints = {401, 403, 404})
    void aRefusalWhenAskedToResumeIsNotAskedAgainAndLeavesNothing(int status) throws Exception {
        hub.cutTransfers(1000, 1);

        PullException e = failure(puller(), REPO, at(1000, () -> hub.downloadFault(Integer.toString(status), 1)));

        assertThat(e.kind()).isIn(PullException.Kind.UNAUTHORIZED, PullException.Kind.NOT_FOUND);
        assertThat(e.resumable()).isFalse();
        assertThat(hub.downloads()).hasSize(2);
        assertThat(tree()).isEmpty();
    }

    @Test
    void aTransferThatStallsIsCutAfterTheStallTimeoutAndResumed() throws Exception {
        hub.holdAfter(5000);
        Puller impatient = new Puller(() -> Hub.fromEnvironment(Map.of("HF_ENDPOINT", hub.endpoint()), "test"),
                new ModelsDirectory(models, DiskSpace.SYSTEM, List.of(".rkllm", ".gguf")), Board.UNKNOWN,
                new Puller.Settings(3, Duration.ZERO, Duration.ofMillis(500)));
        try {
            PullResult result = impatient.pull(REPO, PullProgress.NONE);

            assertThat(Files.readAllBytes(result.model())).isEqualTo(q4);
            assertThat(hub.downloads()).extracting(StandInHub.Seen::range)
                    .containsExactly(Optional.empty(), Optional.of("bytes=5000-"));
        } finally {
            hub.release();
        }
    }

    @Test
    void aStorageThatIgnoresRangesGivesTheWholeFileAgain() throws Exception {
        hub.cutTransfers(1000, 1);
        hub.ignoreRanges();

        PullResult result = puller().pull(REPO, PullProgress.NONE);

        assertThat(Files.readAllBytes(result.model())).isEqualTo(q4);
        assertThat(result.downloaded()).isEqualTo(q4.length + 1000);
    }

    @Test
    void bytesThatDoNotMatchTheirDigestAreRemovedWithAMessageAndNothingIsInstalled() throws Exception {
        hub.corrupt(REPO, "Tiny-Chat-Q4_K_M.gguf", 777);

        PullException e = failure(puller(), REPO);

        assertThat(e.kind()).isEqualTo(PullException.Kind.BAD_GATEWAY);
        assertThat(e.getMessage()).isEqualTo("Tiny-Chat-Q4_K_M.gguf: the downloaded bytes do not have the digest the"
                + " Hub publishes (sha256:" + StandInHub.hex("SHA-256", q4) + "); they were removed, nothing was"
                + " installed: pull again");
        assertThat(tree()).isEmpty();
    }

    @Test
    void anUnknownRepositoryOrFileIsNotFound() throws Exception {
        PullException repo = failure(puller(), "nobody/Nothing-GGUF");
        assertThat(repo.kind()).isEqualTo(PullException.Kind.NOT_FOUND);
        assertThat(repo.getMessage()).isEqualTo("no repository nobody/Nothing-GGUF on " + hub.endpoint()
                + " (a private one needs HF_TOKEN)");

        PullException withToken = failure(puller(Map.of("HF_TOKEN", hub.token()), Board.UNKNOWN, DiskSpace.SYSTEM),
                "nobody/Nothing-GGUF");
        assertThat(withToken.getMessage()).isEqualTo("no repository nobody/Nothing-GGUF on " + hub.endpoint()
                + " that HF_TOKEN may read");

        PullException file = failure(puller(), REPO + "/Tiny-Chat-Q2_K.gguf");
        assertThat(file.kind()).isEqualTo(PullException.Kind.NOT_FOUND);
        assertThat(file.getMessage()).isEqualTo("no file Tiny-Chat-Q2_K.gguf in " + REPO + "; its model files:"
                + " Tiny-Chat-Q8_0.gguf, Tiny-Chat-Q4_K_M.gguf, mmproj-Tiny-Chat-F16.gguf");
        assertThat(tree()).isEmpty();
    }

    @Test
    void aGatedRepositoryNeedsHfTokenWhichGoesToTheHubButNotToTheStorage() throws Exception {
        hub.repo("meta/Gated-GGUF").file("Gated-Q4_K_M.gguf", q4).gated();

        PullException e = failure(puller(), "meta/Gated-GGUF");

        assertThat(e.kind()).isEqualTo(PullException.Kind.UNAUTHORIZED);
        assertThat(e.getMessage()).isEqualTo("meta/Gated-GGUF is gated: accept its terms at " + hub.endpoint()
                + "/meta/Gated-GGUF and set HF_TOKEN to a token of that account (" + hub.endpoint()
                + "/settings/tokens, read access)");
        assertThat(tree()).isEmpty();
        int before = hub.seen().size();

        PullResult result = puller(Map.of("HF_TOKEN", hub.token()), Board.UNKNOWN, DiskSpace.SYSTEM)
                .pull("meta/Gated-GGUF", PullProgress.NONE);

        assertThat(Files.readAllBytes(result.model())).isEqualTo(q4);
        assertThat(hub.seen().subList(before, hub.seen().size())).filteredOn(s -> s.server().equals("hub"))
                .isNotEmpty()
                .allSatisfy(s -> assertThat(s.authorization()).contains("Bearer " + hub.token()));
        assertThat(hub.downloads()).isNotEmpty().allSatisfy(s -> assertThat(s.authorization()).isEmpty());
    }

    @Test
    void aGatedFileRefusedByTheHubSaysWhatToDo() throws Exception {
        hub.repo("meta/Gated-GGUF").file("Gated-Q4_K_M.gguf", q4).gated();

        PullException e = failure(puller(Map.of("HF_TOKEN", "hf_not_the_right_one_0000000000000000000"), Board.UNKNOWN,
                DiskSpace.SYSTEM), "meta/Gated-GGUF");

        assertThat(e.kind()).isEqualTo(PullException.Kind.UNAUTHORIZED);
        assertThat(e.getMessage()).isEqualTo("meta/Gated-GGUF is gated: accept its terms at " + hub.endpoint()
                + "/meta/Gated-GGUF with the account of HF_TOKEN");
        assertThat(tree()).isEmpty();
    }

    @Test
    void aNameWithDotDotOrAnAbsolutePathIsRefusedBeforeAnyRequest() throws Exception {
        for (String name : List.of("/etc/passwd", "../models/x", "tiny/../etc", REPO + "/../../x.gguf",
                REPO + "/./a.gguf", "~/models/x.gguf", "", "tiny/Tiny-Chat-GGUF:Q4_K_M/x.gguf")) {
            PullException e = failure(puller(), name);
            assertThat(e.kind()).as(name).isEqualTo(PullException.Kind.INVALID);
        }
        assertThat(failure(puller(), REPO + "/../../etc/passwd").getMessage()).isEqualTo("'../../etc/passwd' is not a"
                + " file in a repository: '..', '.' and empty parts are not allowed");
        assertThat(failure(puller(), "/var/lib/models/x.gguf").getMessage()).startsWith("'/var/lib/models/x.gguf' is"
                + " a path on this machine, not a model on the Hub: name a model as OWNER/REPO");
        assertThat(hub.seen()).isEmpty();
        assertThat(tree()).isEmpty();
    }

    @Test
    void aHubThatAnswersHtmlOrAnEmptyBodyIsNamed() throws Exception {
        hub.listingFault("html");
        PullException html = failure(puller(), REPO);
        assertThat(html.kind()).isEqualTo(PullException.Kind.BAD_GATEWAY);
        assertThat(html.getMessage()).isEqualTo("the Hub at " + hub.endpoint() + " answered an HTML page for the"
                + " listing of " + REPO + "; is HF_ENDPOINT a Hugging Face Hub?");

        hub.listingFault("empty");
        assertThat(failure(puller(), REPO).getMessage()).isEqualTo("the Hub at " + hub.endpoint() + " answered an"
                + " empty body for the listing of " + REPO + "; is HF_ENDPOINT a Hugging Face Hub?");
        assertThat(tree()).isEmpty();
    }

    @Test
    void aFileAnsweredWithAnHtmlPageOrAnEmptyBodyIsNamedAndLeavesNothing() throws Exception {
        hub.downloadFault("html", 1);
        PullException html = failure(puller(), REPO);
        assertThat(html.kind()).isEqualTo(PullException.Kind.BAD_GATEWAY);
        assertThat(html.resumable()).isFalse();
        assertThat(html.getMessage()).isEqualTo("the Hub at " + hub.endpoint() + " answered an HTML page instead of"
                + " Tiny-Chat-Q4_K_M.gguf; is HF_ENDPOINT a Hugging Face Hub?");
        assertThat(tree()).isEmpty();

        hub.downloadFault("empty", 1);
        PullException empty = failure(puller(), REPO);
        assertThat(empty.kind()).isEqualTo(PullException.Kind.BAD_GATEWAY);
        assertThat(empty.resumable()).isFalse();
        assertThat(empty.getMessage()).isEqualTo("the Hub at " + hub.endpoint() + " answered an empty body instead of"
                + " Tiny-Chat-Q4_K_M.gguf; is HF_ENDPOINT a Hugging Face Hub?");
        assertThat(tree()).isEmpty();
    }

    @Test
    void aDiskThatFillsUpInTheMiddleOfATransferSaysSoAndLeavesNothing() throws Exception {
        Puller puller = new Puller(() -> Hub.fromEnvironment(Map.of("HF_ENDPOINT", hub.endpoint()), "test"),
                new ModelsDirectory(models, DiskSpace.SYSTEM, List.of(".rkllm", ".gguf")), Board.UNKNOWN,
                new Puller.Settings(3, Duration.ZERO, Duration.ofSeconds(30)), new FullDisk(q4.length / 2));
        AtomicLong onDisk = new AtomicLong();

        PullException e = failure(puller, REPO, new PullProgress() {
            @Override
            public void transfer(HubFile file, long completed) {
                onDisk.set(completed);
            }
        });

        assertThat(onDisk.get()).as("bytes on disk before it filled up").isPositive().isLessThan(q4.length);
        assertThat(e.kind()).isEqualTo(PullException.Kind.INSUFFICIENT_STORAGE);
        assertThat(e.resumable()).isFalse();
        assertThat(e.getMessage()).isEqualTo("the disk of " + models.resolve(".pull") + " is full (No space left on"
                + " device); the partial download was removed: free some space and pull again");
        assertThat(tree()).isEmpty();
        assertThat(hub.downloads()).hasSize(1);
    }

    @Test
    void aHubThatCannotBeReachedIsNamed() throws Exception {
        String endpoint = hub.endpoint();
        hub.close();
        PullException e = failure(puller(), REPO);
        assertThat(e.kind()).isEqualTo(PullException.Kind.BAD_GATEWAY);
        assertThat(e.getMessage()).startsWith("cannot reach the Hub at " + endpoint + ": ").endsWith(" (HF_ENDPOINT)");
    }

    @Test
    void aDiskWithoutRoomIsSaidBeforeAByteIsDownloaded() throws Exception {
        PullException e = failure(puller(Map.of(), Board.UNKNOWN, d -> 10_000_000), REPO);

        assertThat(e.kind()).isEqualTo(PullException.Kind.INSUFFICIENT_STORAGE);
        assertThat(e.getMessage()).isEqualTo("not enough disk space in " + models + ": the download needs "
                + Sizes.of(q4.length) + " (and 67 MB to spare), 10 MB is free");
        assertThat(hub.downloads()).isEmpty();
        assertThat(tree()).isEmpty();
    }

    @Test
    void aModelAlreadyThereWithTheHubsDigestDownloadsNothing() throws Exception {
        puller().pull(REPO, PullProgress.NONE);
        int downloads = hub.downloads().size();

        PullResult again = puller().pull(REPO, PullProgress.NONE);

        assertThat(again.upToDate()).isTrue();
        assertThat(hub.downloads()).hasSize(downloads);
    }

    @Test
    void aModelPutThereByHandIsCheckedByItsBytesAndAChangedOneIsDownloadedAgain() throws Exception {
        Path folder = Files.createDirectories(models.resolve("Tiny-Chat-Q4_K_M"));
        Files.write(folder.resolve("Tiny-Chat-Q4_K_M.gguf"), q4);

        assertThat(puller().pull(REPO, PullProgress.NONE).upToDate()).isTrue();
        assertThat(hub.downloads()).isEmpty();

        byte[] damaged = q4.clone();
        damaged[100] ^= 1;
        Files.write(folder.resolve("Tiny-Chat-Q4_K_M.gguf"), damaged);
        PullResult result = puller().pull(REPO, PullProgress.NONE);

        assertThat(result.downloaded()).isEqualTo(q4.length);
        assertThat(Files.readAllBytes(result.model())).isEqualTo(q4);
    }

    @Test
    void aFolderHoldingAnotherModelIsNotWrittenInto() throws Exception {
        Path folder = Files.createDirectories(models.resolve("Tiny-Chat-Q4_K_M"));
        Files.write(folder.resolve("mine.gguf"), q8);

        PullException e = failure(puller(), REPO);

        assertThat(e.kind()).isEqualTo(PullException.Kind.CONFLICT);
        assertThat(e.getMessage()).isEqualTo(folder + " already holds another model (mine.gguf); move it away to pull"
                + " this model there");
        assertThat(hub.downloads()).isEmpty();
    }

    @Test
    void aSecondPullOfTheSameModelWhileTheFirstRunsIsRefused() throws Exception {
        Puller puller = puller();
        CountDownLatch started = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        Thread first = Thread.ofVirtual().start(() -> {
            try {
                puller.pull(REPO, new PullProgress() {
                    @Override
                    public void transfer(HubFile file, long completed) {
                        started.countDown();
                        try {
                            release.await();
                        } catch (InterruptedException e) {
                            Thread.currentThread().interrupt();
                        }
                    }
                });
            } catch (PullException e) {
                throw new IllegalStateException(e);
            }
        });
        assertThat(started.await(30, TimeUnit.SECONDS)).isTrue();

        PullException e = failure(puller, REPO);

        release.countDown();
        first.join();
        assertThat(e.kind()).isEqualTo(PullException.Kind.CONFLICT);
        assertThat(e.getMessage()).isEqualTo("Tiny-Chat-Q4_K_M is being pulled right now; wait for that pull to"
                + " finish");
        assertThat(Files.readAllBytes(models.resolve("Tiny-Chat-Q4_K_M/Tiny-Chat-Q4_K_M.gguf"))).isEqualTo(q4);
    }

    @Test
    void aRepositoryWithoutModelFilesSaysWhatTheServerRuns() throws Exception {
        hub.repo("org/Safetensors-Only").file("model.safetensors", bytes(100, 4)).file("config.json",
                "{}".getBytes(StandardCharsets.UTF_8));

        PullException e = failure(puller(), "org/Safetensors-Only");

        assertThat(e.kind()).isEqualTo(PullException.Kind.NOT_FOUND);
        assertThat(e.getMessage()).startsWith("org/Safetensors-Only has no .gguf or .rkllm model file: the server runs"
                + " GGUF models (llama.cpp) and RKLLM conversions (the NPU)");
    }
}
