/*
 * Pull bench of rkllm-server (run it with scripts/bench-pull). A file of --size bytes (1 GiB) is served by the
 * test suite's stand-in Hub (server/target/test-classes) on loopback; then, --runs times each, in turns:
 *   curl -L of the file's resolve address (the Hub's redirect to its storage, as the pull follows it), to a file;
 *   the jar's `pull bench/model-GGUF --models DIR` as a user runs it (`java -jar`, --java-opts), from the
 *   process's start to its exit: listing, resolve, transfer with the SHA-256 computed as the bytes arrive, fsync,
 *   placement.
 * Throughput is the file's size over the wall time: curl's; curl's piped through tee into sha256sum (the same work as
 * a pull); the pull's from its first progress line to its exit, and its whole command (a JVM's start and the listing
 * too). The command's memory is sampled from /proc/PID/status every
 * 10 ms: VmRSS when its first progress line appears (the transfer starts), VmHWM (peak) at the end; the same for a
 * 1 MiB pull, so that what grows with the file's size shows. Needs only a JDK 25 and curl.
 */

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
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
    static Path work = Path.of(System.getProperty("java.io.tmpdir"), "rkllm-bench-pull");

    /**
     * @param seconds    the whole command, from the process's start (JVM start, listing) to its exit
     * @param transfer   from its first progress line (the file's transfer starts) to its exit: the transfer with the
     *                   digest, the fsync, the placement, the discovery that names the model
     */
    record Pull(double seconds, double transfer, long rssAtStart, long peak) {
    }

    public static void main(String[] args) throws Exception {
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--size" -> size = Long.parseLong(args[++i]);
                case "--runs" -> runs = Integer.parseInt(args[++i]);
                case "--java-opts" -> javaOpts = args[++i];
                case "--work" -> work = Path.of(args[++i]);
                case "--jar" -> jar = Path.of(args[++i]);
                default -> {
                    System.err.println("usage: scripts/bench-pull [--size BYTES] [--runs N] [--java-opts \"...\"]"
                            + " [--work DIR] [--jar JAR]");
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
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        Path big = file(java, work.resolve("model-" + size + ".gguf"), size);
        Path small = file(java, work.resolve("model-small.gguf"), 1 << 20);
        Process hub = new ProcessBuilder(java, "-cp", testClasses.toString(), "io.rkllm.server.download.StandInHub",
                big.toString(), small.toString()).redirectErrorStream(true).start();
        try {
            String endpoint = new BufferedReader(new InputStreamReader(hub.getInputStream(), StandardCharsets.UTF_8))
                    .readLine();
            System.out.printf(Locale.ROOT, "file: %d bytes; stand-in Hub %s; %d runs each, in turns; java options: %s%n",
                    size, endpoint, runs, javaOpts.isBlank() ? "(none: the launcher's default)" : javaOpts);
            List<Double> curl = new ArrayList<>();
            List<Double> curlHashed = new ArrayList<>();
            List<Pull> pulls = new ArrayList<>();
            List<Pull> smallPulls = new ArrayList<>();
            for (int run = 0; run < runs; run++) {
                curl.add(curl(endpoint + "/bench/model-GGUF/resolve/main/model-Q4_K_M.gguf", false));
                curlHashed.add(curl(endpoint + "/bench/model-GGUF/resolve/main/model-Q4_K_M.gguf", true));
                pulls.add(pull(java, endpoint, "bench/model-GGUF", size));
                smallPulls.add(pull(java, endpoint, "bench/model2-GGUF", 1 << 20));
                System.out.printf(Locale.ROOT, "run %d: curl %.0f MB/s, curl | tee | sha256sum %.0f MB/s; pull %.0f MB/s"
                        + " (transfer), %.0f MB/s (command), RSS %d MB at the transfer's start, peak %d MB; 1 MiB"
                        + " pull peak %d MB%n", run + 1, size / curl.getLast() / 1e6, size / curlHashed.getLast() / 1e6,
                        size / pulls.getLast().transfer() / 1e6, size / pulls.getLast().seconds() / 1e6,
                        pulls.getLast().rssAtStart() >> 20, pulls.getLast().peak() >> 20,
                        smallPulls.getLast().peak() >> 20);
            }
            double curlRate = size / median(curl) / 1e6;
            double hashedRate = size / median(curlHashed) / 1e6;
            double pullRate = size / median(pulls.stream().map(Pull::transfer).toList()) / 1e6;
            double commandRate = size / median(pulls.stream().map(Pull::seconds).toList()) / 1e6;
            long start = (long) median(pulls.stream().map(p -> (double) p.rssAtStart()).toList());
            long peak = (long) median(pulls.stream().map(p -> (double) p.peak()).toList());
            long smallPeak = (long) median(smallPulls.stream().map(p -> (double) p.peak()).toList());
            System.out.printf(Locale.ROOT, "%ncurl:  %.0f MB/s (median of %d); curl | tee FILE | sha256sum (the same"
                    + " work as a pull): %.0f MB/s%n", curlRate, runs, hashedRate);
            System.out.printf(Locale.ROOT, "pull:  %.0f MB/s (median, from the transfer's start to the exit: digest,"
                    + " fsync, placement included), %.0f%% of curl's, %.0f%% of curl | sha256sum's; the whole command"
                    + " (JVM start and listing too) %.0f MB/s%n", pullRate, 100 * pullRate / curlRate,
                    100 * pullRate / hashedRate, commandRate);
            System.out.printf(Locale.ROOT, "memory: RSS %d MB when the transfer starts, peak %d MB: +%d MB over the"
                    + " transfer; peak of a 1 MiB pull %d MB (+%d MB for %d MB more)%n", start >> 20, peak >> 20,
                    (peak - start) >> 20, smallPeak >> 20, (peak - smallPeak) >> 20, (size - (1 << 20)) >> 20);
        } finally {
            hub.destroy();
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

    /** curl -L to a file; with {@code hashed}, through tee into sha256sum as well (what a pull does besides). */
    static double curl(String url, boolean hashed) throws Exception {
        Path out = work.resolve("curl.out");
        Files.deleteIfExists(out);
        long t0 = System.nanoTime();
        ProcessBuilder pb = hashed
                ? new ProcessBuilder("sh", "-c", "curl -sS -L '" + url + "' | tee '" + out + "' | sha256sum >/dev/null")
                : new ProcessBuilder("curl", "-sS", "-L", "-o", out.toString(), url);
        Process p = pb.inheritIO().start();
        if (p.waitFor() != 0 || Files.size(out) != size) {
            throw new IllegalStateException("curl failed");
        }
        double seconds = (System.nanoTime() - t0) / 1e9;
        Files.delete(out);
        return seconds;
    }

    static Pull pull(String java, String endpoint, String model, long expected) throws Exception {
        Path models = work.resolve("models");
        if (Files.exists(models)) {
            try (Stream<Path> walk = Files.walk(models)) {
                for (Path p : walk.sorted(Comparator.reverseOrder()).toList()) {
                    Files.delete(p);
                }
            }
        }
        List<String> command = new ArrayList<>(List.of(java));
        if (!javaOpts.isBlank()) {
            command.addAll(Arrays.asList(javaOpts.trim().split("\\s+")));
        }
        command.addAll(List.of("-jar", jar.toString(), "pull", "--models", models.toString(), model));
        ProcessBuilder pb = new ProcessBuilder(command).redirectErrorStream(true);
        pb.environment().put("HF_ENDPOINT", endpoint);
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
        Path pulled = models.resolve("model-Q4_K_M/model-Q4_K_M.gguf");
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
