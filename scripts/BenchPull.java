/*
 * Pull bench of rkllm-server (run it with scripts/bench-pull). A file of --size bytes (1 GiB) is served by the
 * test suite's stand-in Hub (server/target/test-classes) on loopback; then, --runs times each, in turns:
 *   curl -L of the file's resolve address (the Hub's redirect to its storage, as the pull follows it), to a file;
 *   the jar's `pull bench/model-GGUF --models DIR` as a user runs it (`java -jar`, --java-opts), from the
 *   process's start to its exit: listing, resolve, transfer with the SHA-256 computed as the bytes arrive, fsync,
 *   placement.
 *   Ollama's POST /api/pull of hf.co/bench/model-GGUF ("stream": false) on a server started once before the runs
 *   (`serve --models DIR`, HF_ENDPOINT the stand-in), from the request to its answer, then DELETE /api/delete: no
 *   JVM start in what is measured. The server runs with the service's JVM options (rkllm-server.service's
 *   RKLLM_JAVA_OPTS without its class-data-sharing archive; --server-java-opts "..." for others, "none" for the
 *   launcher's default). The server's first pull (its code not compiled yet) is reported on its own.
 * --jar and --test-classes measure another build (the stand-in Hub is the test classes' StandInHub).
 * --source registry does the same against the stand-in Ollama registry (StandInRegistry: the manifest of
 *   library/bench:latest, its blob through the registry's redirect to a server sending it with sendfile): curl of the
 *   blob's address (-L through the redirect), `pull bench`, POST /api/pull of "bench" (RKLLM_REGISTRY the stand-in).
 * Throughput is the file's size over the wall time: curl's; curl's piped through tee into sha256sum (the same work as
 * a pull); the command's from its first progress line to its exit, and its whole command (a JVM's start and the
 * listing too); the server's pull. The CPU each spent (curl's and the command's from wait4, the server's and the
 * stand-in's from /proc/PID/stat) is printed beside. Memory is sampled from /proc/PID/status every 10 ms: the
 * command's VmRSS when its first progress line appears (the transfer starts) and VmHWM (peak) at the end, the same
 * for a 1 MiB pull, so that what grows with the file's size shows; the server's VmRSS before each pull and its
 * highest during it. Each run also uploads the file to the server as Open WebUI's "upload a GGUF" does
 * (POST /api/blobs/sha256:HEX, streamed from the file), with the server's RSS sampled the same way: it must stay flat
 * whatever the file's size (--size 4294967296 for a multi-gigabyte one); the blob is removed after each.
 * The machine's load average is printed at the start and the end. Needs a JDK 25 and curl.
 */

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;

public class BenchPull {
    static Path repo = Path.of(".").toAbsolutePath().normalize();
    static Path jar = repo.resolve("server/target/rkllm-server.jar");
    static Path testClasses = repo.resolve("server/target/test-classes");
    static long size = 1L << 30;
    static int runs = 3;
    static String javaOpts = "";
    static Path unit = repo.resolve("packaging/systemd/rkllm-server.service");
    static String serverOpts = null;
    static Path work = Path.of(System.getProperty("java.io.tmpdir"), "rkllm-bench-pull");
    /** Whether the stand-in is an Ollama registry (--source registry) rather than the Hub. */
    static boolean registry = false;

    /** The name pulled for the big file (the small one's: {@link #smallName}). */
    static String bigName() {
        return registry ? "bench" : "bench/model-GGUF";
    }

    static String smallName() {
        return registry ? "bench2" : "bench/model2-GGUF";
    }

    /** Where a pull of {@code name} puts its model file. */
    static Path pulled(Path models, String name) {
        return registry ? models.resolve(name + "/" + name + ".gguf") : models.resolve("model-Q4_K_M/model-Q4_K_M.gguf");
    }

    /** The environment variable naming the stand-in to the server and the command. */
    static String endpointVariable() {
        return registry ? "RKLLM_REGISTRY" : "HF_ENDPOINT";
    }

    /**
     * @param seconds    the whole command, from the process's start (JVM start, listing) to its exit
     * @param transfer   from its first progress line (the file's transfer starts) to its exit: the transfer with the
     *                   digest, the fsync, the placement, the discovery that names the model
     */
    record Pull(double seconds, double transfer, long rssAtStart, long peak) {
    }

    /**
     * @param seconds   from the POST to its answer
     * @param cpu       the server's CPU seconds over it (user and system, every thread)
     * @param hubCpu    the stand-in's CPU seconds over it
     * @param rssBefore the server's VmRSS before the request
     * @param rssPeak   its highest VmRSS sampled during the request
     */
    record ServerPull(double seconds, double cpu, double hubCpu, long rssBefore, long rssPeak) {
    }

    /** A timed run of curl: wall seconds, its CPU seconds, the stand-in's. */
    record Curl(double seconds, double cpu, double hubCpu) {
    }

    public static void main(String[] args) throws Exception {
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--size" -> size = Long.parseLong(args[++i]);
                case "--runs" -> runs = Integer.parseInt(args[++i]);
                case "--java-opts" -> javaOpts = args[++i];
                case "--work" -> work = Path.of(args[++i]);
                case "--jar" -> jar = Path.of(args[++i]);
                case "--test-classes" -> testClasses = Path.of(args[++i]);
                case "--server-java-opts" -> serverOpts = args[++i];
                case "--source" -> registry = switch (args[++i]) {
                    case "registry" -> true;
                    case "hub" -> false;
                    default -> throw new IllegalArgumentException("--source hub or registry");
                };
                default -> {
                    System.err.println("usage: scripts/bench-pull [--size BYTES] [--runs N] [--java-opts \"...\"]"
                            + " [--server-java-opts \"...\"|none] [--work DIR] [--jar JAR] [--test-classes DIR]"
                            + " [--source hub|registry]");
                    System.exit(2);
                }
            }
        }
        for (Path needed : List.of(jar, testClasses.resolve("io/rkllm/server/download/StandInHub.class"))) {
            if (!Files.exists(needed)) {
                System.err.println("bench-pull: " + needed + " is missing: ./mvnw -B -pl server -am package -DskipTests");
                System.exit(2);
            }
        }
        Files.createDirectories(work);
        if (serverOpts == null) {
            serverOpts = serviceOptions();
        } else if (serverOpts.equals("none")) {
            serverOpts = "";
        }
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        Path big = file(java, work.resolve("model-" + size + ".gguf"), size);
        Path small = file(java, work.resolve("model-small.gguf"), 1 << 20);
        // the stand-in registry computes its manifests' digests with the server's own RegistryClient
        Process hub = new ProcessBuilder(java, "-cp", testClasses + ":" + jar,
                "io.rkllm.server.download."
                + (registry ? "StandInRegistry" : "StandInHub"), big.toString(), small.toString())
                .redirectErrorStream(true).start();
        Process server = null;
        try {
            BufferedReader said = new BufferedReader(new InputStreamReader(hub.getInputStream(), StandardCharsets.UTF_8));
            String endpoint = said.readLine();
            String blobUrl = endpoint + (registry ? said.readLine() : "/bench/model-GGUF/resolve/main/model-Q4_K_M.gguf");
            hubPid = hub.pid();
            System.out.printf(Locale.ROOT, "file: %d bytes; stand-in %s %s; %d runs each, in turns; java options: %s;"
                    + " load average %s%n", size, registry ? "registry" : "Hub", endpoint, runs, javaOpts.isBlank() ? "(none: the launcher's default)"
                    : javaOpts, load());
            System.out.printf(Locale.ROOT, "server's java options: %s%n", serverOpts.isBlank()
                    ? "(none: the launcher's default)" : serverOpts);
            server = serve(java, endpoint);
            ServerPull first = serverPull(server);
            System.out.printf(Locale.ROOT, "server's first pull: %.0f MB/s, %.2f s CPU%n", size / first.seconds() / 1e6,
                    first.cpu());
            List<Curl> curl = new ArrayList<>();
            List<Double> curlHashed = new ArrayList<>();
            List<Pull> pulls = new ArrayList<>();
            List<Pull> smallPulls = new ArrayList<>();
            List<ServerPull> served = new ArrayList<>();
            List<ServerPull> uploads = new ArrayList<>();
            String hex = sha256(big);
            for (int run = 0; run < runs; run++) {
                curl.add(curl(blobUrl));
                served.add(serverPull(server));
                pulls.add(pull(java, endpoint, bigName(), size));
                smallPulls.add(pull(java, endpoint, smallName(), 1 << 20));
                curlHashed.add(curlHashed(blobUrl));
                uploads.add(serverUpload(server, big, hex));
                System.out.printf(Locale.ROOT, "run %d: upload %.0f MB/s (%.2f s CPU), RSS %d MB before, +%d MB%n",
                        run + 1, size / uploads.getLast().seconds() / 1e6, uploads.getLast().cpu(),
                        uploads.getLast().rssBefore() >> 20,
                        (uploads.getLast().rssPeak() - uploads.getLast().rssBefore()) >> 20);
                System.out.printf(Locale.ROOT, "run %d: curl %.0f MB/s (%.2f s CPU, stand-in %.2f s); server's pull %.0f"
                        + " MB/s (%.2f s CPU, stand-in %.2f s), RSS %d MB before, +%d MB; command %.0f MB/s (transfer),"
                        + " %.0f MB/s (command), RSS %d MB at the transfer's start, peak %d MB; 1 MiB pull peak %d MB;"
                        + " curl | tee | sha256sum %.0f MB/s; load %s%n", run + 1, size / curl.getLast().seconds() / 1e6,
                        curl.getLast().cpu(), curl.getLast().hubCpu(), size / served.getLast().seconds() / 1e6,
                        served.getLast().cpu(), served.getLast().hubCpu(), served.getLast().rssBefore() >> 20,
                        (served.getLast().rssPeak() - served.getLast().rssBefore()) >> 20,
                        size / pulls.getLast().transfer() / 1e6, size / pulls.getLast().seconds() / 1e6,
                        pulls.getLast().rssAtStart() >> 20, pulls.getLast().peak() >> 20,
                        smallPulls.getLast().peak() >> 20, size / curlHashed.getLast() / 1e6, load());
            }
            double curlRate = size / median(curl.stream().map(Curl::seconds).toList()) / 1e6;
            double hashedRate = size / median(curlHashed) / 1e6;
            double serverRate = size / median(served.stream().map(ServerPull::seconds).toList()) / 1e6;
            double pullRate = size / median(pulls.stream().map(Pull::transfer).toList()) / 1e6;
            double commandRate = size / median(pulls.stream().map(Pull::seconds).toList()) / 1e6;
            long start = (long) median(pulls.stream().map(p -> (double) p.rssAtStart()).toList());
            long peak = (long) median(pulls.stream().map(p -> (double) p.peak()).toList());
            long smallPeak = (long) median(smallPulls.stream().map(p -> (double) p.peak()).toList());
            long serverGrowth = (long) median(served.stream().map(p -> (double) (p.rssPeak() - p.rssBefore())).toList());
            long serverMaxGrowth = served.stream().mapToLong(p -> p.rssPeak() - p.rssBefore()).max().orElse(0);
            System.out.printf(Locale.ROOT, "%ncurl:  %.0f MB/s (median of %d), %.2f s CPU, the stand-in's %.2f s;"
                    + " curl | tee FILE | sha256sum (the same work as a pull): %.0f MB/s%n", curlRate, runs,
                    median(curl.stream().map(Curl::cpu).toList()), median(curl.stream().map(Curl::hubCpu).toList()),
                    hashedRate);
            System.out.printf(Locale.ROOT, "server: POST /api/pull %.0f MB/s (median, from the request to its answer:"
                    + " digest, fsync, placement, discovery included), %.0f%% of curl's; %.2f s CPU, the stand-in's"
                    + " %.2f s; its RSS +%d MB during a pull (median; at most +%d MB)%n", serverRate,
                    100 * serverRate / curlRate, median(served.stream().map(ServerPull::cpu).toList()),
                    median(served.stream().map(ServerPull::hubCpu).toList()), serverGrowth >> 20,
                    serverMaxGrowth >> 20);
            System.out.printf(Locale.ROOT, "pull:  %.0f MB/s (median, from the transfer's start to the exit: digest,"
                    + " fsync, placement included), %.0f%% of curl's, %.0f%% of curl | sha256sum's; the whole command"
                    + " (JVM start and listing too) %.0f MB/s%n", pullRate, 100 * pullRate / curlRate,
                    100 * pullRate / hashedRate, commandRate);
            System.out.printf(Locale.ROOT, "memory: RSS %d MB when the transfer starts, peak %d MB: +%d MB over the"
                    + " transfer; peak of a 1 MiB pull %d MB (+%d MB for %d MB more)%n", start >> 20, peak >> 20,
                    (peak - start) >> 20, smallPeak >> 20, (peak - smallPeak) >> 20, (size - (1 << 20)) >> 20);
            System.out.printf(Locale.ROOT, "upload: POST /api/blobs %.0f MB/s (median), %.2f s CPU; the server's RSS +%d MB"
                    + " during an upload (median; at most +%d MB) for %d MB%n",
                    size / median(uploads.stream().map(ServerPull::seconds).toList()) / 1e6,
                    median(uploads.stream().map(ServerPull::cpu).toList()),
                    (long) median(uploads.stream().map(p -> (double) (p.rssPeak() - p.rssBefore())).toList()) >> 20,
                    uploads.stream().mapToLong(p -> p.rssPeak() - p.rssBefore()).max().orElse(0) >> 20, size >> 20);
            System.out.printf(Locale.ROOT, "load average at the end: %s%n", load());
        } finally {
            if (server != null) {
                server.destroy();
                server.waitFor();
            }
            hub.destroy();
        }
    }

    static long hubPid;
    static int serverPort;
    static final HttpClient HTTP = HttpClient.newHttpClient();

    /** The server, on a free port, with its own models directory; returns once it listens. */
    static Process serve(String java, String endpoint) throws Exception {
        Path models = work.resolve("served-models");
        clear(models);
        Files.createDirectories(models);
        try (var socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            serverPort = socket.getLocalPort();
        }
        List<String> command = new ArrayList<>(List.of(java));
        if (!serverOpts.isBlank()) {
            command.addAll(Arrays.asList(serverOpts.trim().split("\\s+")));
        }
        command.addAll(List.of("-jar", jar.toString(), "serve", "--models", models.toString(), "--host", "127.0.0.1",
                "--port", Integer.toString(serverPort), "--security.allow_pull=true"));
        ProcessBuilder pb = new ProcessBuilder(command).redirectErrorStream(true)
                .redirectOutput(work.resolve("server.log").toFile());
        pb.environment().put(endpointVariable(), endpoint);
        Process p = pb.start();
        for (int i = 0; i < 600; i++) {
            if (!p.isAlive()) {
                throw new IllegalStateException("the server stopped: " + work.resolve("server.log"));
            }
            if (Files.readString(work.resolve("server.log")).contains("listening on")) {
                return p;
            }
            Thread.sleep(100);
        }
        throw new IllegalStateException("the server did not listen within a minute: " + work.resolve("server.log"));
    }

    /**
     * The service's JVM options (RKLLM_JAVA_OPTS of rkllm-server.service): a running server is the service, and its
     * options decide what the JVM compiles (the client compiler alone). Without its class-data-sharing archive,
     * which lives in the service's state directory.
     */
    static String serviceOptions() throws IOException {
        for (String line : Files.readAllLines(unit)) {
            if (line.startsWith("Environment=\"RKLLM_JAVA_OPTS=")) {
                return Arrays.stream(line.substring("Environment=\"RKLLM_JAVA_OPTS=".length(), line.length() - 1)
                                .split("\\s+"))
                        .filter(o -> !o.contains("SharedArchive") && !o.startsWith("-Xlog:cds"))
                        .collect(java.util.stream.Collectors.joining(" "));
            }
        }
        throw new IllegalStateException("no RKLLM_JAVA_OPTS in " + unit);
    }

    /** One POST /api/pull of the big model on the running server, then its DELETE. */
    static ServerPull serverPull(Process server) throws Exception {
        long pid = server.pid();
        AtomicLong before = new AtomicLong(rss(pid));
        AtomicLong peak = new AtomicLong(before.get());
        java.util.concurrent.atomic.AtomicBoolean done = new java.util.concurrent.atomic.AtomicBoolean();
        Thread sampler = Thread.ofPlatform().daemon().start(() -> {
            while (!done.get()) {
                try {
                    peak.accumulateAndGet(rss(pid), Math::max);
                    Thread.sleep(10);
                } catch (IOException | InterruptedException e) {
                    return;
                }
            }
        });
        double cpu0 = cpu(pid);
        double hub0 = cpu(hubPid);
        long t0 = System.nanoTime();
        HttpResponse<String> answer = HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + serverPort
                + "/api/pull")).POST(HttpRequest.BodyPublishers.ofString(
                "{\"model\":\"" + (registry ? "bench" : "hf.co/bench/model-GGUF") + "\",\"stream\":false}")).build(),
                HttpResponse.BodyHandlers.ofString());
        long t1 = System.nanoTime();
        double cpu = cpu(pid) - cpu0;
        double hubCpu = cpu(hubPid) - hub0;
        done.set(true);
        sampler.join();
        if (answer.statusCode() != 200 || !answer.body().contains("success")) {
            throw new IllegalStateException("the server's pull failed: " + answer.statusCode() + " " + answer.body());
        }
        HttpResponse<String> deleted = HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + serverPort
                + "/api/delete")).method("DELETE", HttpRequest.BodyPublishers.ofString(
                "{\"model\":\"" + (registry ? "bench" : "model-q4_k_m") + "\"}")).build(),
                HttpResponse.BodyHandlers.ofString());
        if (deleted.statusCode() != 200) {
            throw new IllegalStateException("the delete failed: " + deleted.statusCode() + " " + deleted.body());
        }
        return new ServerPull((t1 - t0) / 1e9, cpu, hubCpu, before.get(), peak.get());
    }

    /** One upload of the file as a blob (201), its RSS sampled, then the blob removed for the next run. */
    static ServerPull serverUpload(Process server, Path file, String hex) throws Exception {
        long pid = server.pid();
        AtomicLong before = new AtomicLong(rss(pid));
        AtomicLong peak = new AtomicLong(before.get());
        java.util.concurrent.atomic.AtomicBoolean done = new java.util.concurrent.atomic.AtomicBoolean();
        Thread sampler = Thread.ofPlatform().daemon().start(() -> {
            while (!done.get()) {
                try {
                    peak.accumulateAndGet(rss(pid), Math::max);
                    Thread.sleep(10);
                } catch (IOException | InterruptedException e) {
                    return;
                }
            }
        });
        double cpu0 = cpu(pid);
        long t0 = System.nanoTime();
        HttpResponse<String> answer = HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + serverPort
                + "/api/blobs/sha256:" + hex)).POST(HttpRequest.BodyPublishers.ofFile(file)).build(),
                HttpResponse.BodyHandlers.ofString());
        long t1 = System.nanoTime();
        double cpu = cpu(pid) - cpu0;
        done.set(true);
        sampler.join();
        if (answer.statusCode() != 201) {
            throw new IllegalStateException("the upload failed: " + answer.statusCode() + " " + answer.body());
        }
        Files.delete(work.resolve("served-models/.pull/sha256-" + hex + ".blob"));
        return new ServerPull((t1 - t0) / 1e9, cpu, 0, before.get(), peak.get());
    }

    static String sha256(Path file) throws Exception {
        java.security.MessageDigest md = java.security.MessageDigest.getInstance("SHA-256");
        try (var in = Files.newInputStream(file)) {
            byte[] buffer = new byte[1 << 20];
            int n;
            while ((n = in.read(buffer)) > 0) {
                md.update(buffer, 0, n);
            }
        }
        return java.util.HexFormat.of().formatHex(md.digest());
    }

    /** User and system CPU seconds of a process so far (/proc/PID/stat, in clock ticks of 1/100 s). */
    static double cpu(long pid) throws IOException {
        String stat = Files.readString(Path.of("/proc", Long.toString(pid), "stat"));
        String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
        return (Long.parseLong(f[11]) + Long.parseLong(f[12])) / 100.0;
    }

    static long rss(long pid) throws IOException {
        for (String line : Files.readAllLines(Path.of("/proc", Long.toString(pid), "status"))) {
            if (line.startsWith("VmRSS:")) {
                return kb(line);
            }
        }
        return 0;
    }

    static String load() throws IOException {
        String[] l = Files.readString(Path.of("/proc/loadavg")).split(" ");
        return l[0] + " " + l[1] + " " + l[2];
    }

    static void clear(Path dir) throws IOException {
        if (Files.exists(dir)) {
            try (Stream<Path> walk = Files.walk(dir)) {
                for (Path p : walk.sorted(Comparator.reverseOrder()).toList()) {
                    Files.delete(p);
                }
            }
        }
    }

    /**
     * A model of {@code bytes} bytes (kept between runs of the bench): the tests' tiny GGUF model, which discovery
     * reads as a model, followed by random bytes.
     */
    static Path file(String java, Path path, long bytes) throws Exception {
        if (Files.exists(path) && Files.size(path) == bytes) {
            return path;
        }
        Path tiny = work.resolve("tiny.gguf");
        if (new ProcessBuilder(java, "-cp", jar.toString(), "io.rkllm.llama.gguf.TinyLlama", tiny.toString())
                .inheritIO().start().waitFor() != 0) {
            throw new IllegalStateException("could not write the tiny model");
        }
        SplittableRandom random = new SplittableRandom(42);
        byte[] buffer = new byte[4 << 20];
        try (OutputStream out = Files.newOutputStream(path)) {
            out.write(Files.readAllBytes(tiny));
            for (long left = bytes - Files.size(tiny); left > 0; left -= buffer.length) {
                for (int i = 0; i < buffer.length; i += 8) {
                    long v = random.nextLong();
                    for (int b = 0; b < 8; b++) {
                        buffer[i + b] = (byte) (v >>> (8 * b));
                    }
                }
                out.write(buffer, 0, (int) Math.min(buffer.length, left));
            }
        }
        return path;
    }

    /** curl -L to a file: its wall time, its CPU time (user and system: the shell's {@code times}), the stand-in's. */
    static Curl curl(String url) throws Exception {
        Path out = work.resolve("curl.out");
        Files.deleteIfExists(out);
        double hub0 = cpu(hubPid);
        long t0 = System.nanoTime();
        Process p = new ProcessBuilder("sh", "-c", "curl -sS -L -o '" + out + "' '" + url + "' && times")
                .redirectError(ProcessBuilder.Redirect.INHERIT).start();
        String times = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (p.waitFor() != 0 || Files.size(out) != size) {
            throw new IllegalStateException("curl failed");
        }
        double seconds = (System.nanoTime() - t0) / 1e9;
        double hubCpu = cpu(hubPid) - hub0;
        Files.delete(out);
        // the second line of times: the children's user and system time, as 0m1.150s 0m0.020s
        double cpu = 0;
        for (String t : times.strip().lines().toList().getLast().strip().split("\\s+")) {
            String[] ms = t.replace("s", "").split("m");
            cpu += Integer.parseInt(ms[0]) * 60 + Double.parseDouble(ms[1]);
        }
        return new Curl(seconds, cpu, hubCpu);
    }

    /** curl -L through tee into a file and sha256sum (what a pull does besides). */
    static double curlHashed(String url) throws Exception {
        Path out = work.resolve("curl.out");
        Files.deleteIfExists(out);
        long t0 = System.nanoTime();
        Process p = new ProcessBuilder("sh", "-c", "curl -sS -L '" + url + "' | tee '" + out + "' | sha256sum >/dev/null")
                .inheritIO().start();
        if (p.waitFor() != 0 || Files.size(out) != size) {
            throw new IllegalStateException("curl failed");
        }
        double seconds = (System.nanoTime() - t0) / 1e9;
        Files.delete(out);
        return seconds;
    }

    static Pull pull(String java, String endpoint, String model, long expected) throws Exception {
        Path models = work.resolve("models");
        clear(models);
        List<String> command = new ArrayList<>(List.of(java));
        if (!javaOpts.isBlank()) {
            command.addAll(Arrays.asList(javaOpts.trim().split("\\s+")));
        }
        command.addAll(List.of("-jar", jar.toString(), "pull", "--models", models.toString(), model));
        ProcessBuilder pb = new ProcessBuilder(command).redirectErrorStream(true);
        pb.environment().put(endpointVariable(), endpoint);
        pb.environment().put("RKLLM_LOGGING_LEVEL", "warn");
        long t0 = System.nanoTime();
        Process p = pb.start();
        AtomicLong rssAtStart = new AtomicLong(-1);
        AtomicLong transferStart = new AtomicLong();
        AtomicLong rss = new AtomicLong();
        AtomicLong peak = new AtomicLong();
        Thread sampler = Thread.ofPlatform().daemon().start(() -> {
            Path status = Path.of("/proc", Long.toString(p.pid()), "status");
            while (p.isAlive()) {
                try {
                    for (String line : Files.readAllLines(status)) {
                        if (line.startsWith("VmRSS:")) {
                            rss.set(kb(line));
                        } else if (line.startsWith("VmHWM:")) {
                            peak.set(kb(line));
                        }
                    }
                    Thread.sleep(10);
                } catch (IOException | InterruptedException e) {
                    return;
                }
            }
        });
        StringBuilder console = new StringBuilder();
        try (BufferedReader lines = new BufferedReader(new InputStreamReader(p.getInputStream(),
                StandardCharsets.UTF_8))) {
            String line;
            while ((line = lines.readLine()) != null) {
                console.append(line).append('\n');
                if (rssAtStart.get() < 0 && line.contains(": 0% of")) {
                    rssAtStart.set(rss.get());
                    transferStart.set(System.nanoTime());
                }
            }
        }
        int code = p.waitFor();
        long end = System.nanoTime();
        double seconds = (end - t0) / 1e9;
        sampler.join();
        Path pulled = pulled(models, model);
        if (code != 0 || !Files.exists(pulled) || Files.size(pulled) != expected) {
            throw new IllegalStateException("the pull failed (exit " + code + "):\n" + console);
        }
        return new Pull(seconds, (end - transferStart.get()) / 1e9, rssAtStart.get(), peak.get());
    }

    static long kb(String line) {
        return Long.parseLong(line.replaceAll("[^0-9]", "")) * 1024;
    }

    static double median(List<Double> values) {
        List<Double> sorted = values.stream().sorted().toList();
        return sorted.get(sorted.size() / 2);
    }
}
