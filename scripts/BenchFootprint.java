/*
 * Footprint bench of rkllm-server (run it with scripts/bench-footprint). Starts the server jar as a
 * child process with the systemd unit's JVM flags on the simulated runtime at zero latency, then:
 * start-to-ready (process start to the first 200 from /health), RSS 1 s after ready and idle (12 s after
 * ready, once the JVM has settled; VmRSS from /proc), 100
 * streamed answers of 256 tokens one after the other (time to first byte p50/p95, SSE tokens/s), RSS
 * after, and the stop (SIGTERM to exit). Needs only a JDK 25: java scripts/BenchFootprint.java --help
 */

import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;

public class BenchFootprint {
    static Path repo = Path.of(".").toAbsolutePath().normalize();
    static Path jar = repo.resolve("server/target/rkllm-server.jar");
    static Path unit = repo.resolve("packaging/systemd/rkllm-server.service");
    static String opts = null;
    static String extraOpts = "";
    static int requests = 100;
    static int tokens = 256;
    static int starts = 2;
    static int idleSeconds = 12;
    static int warmup = 0;
    static java.util.Map<String, String> env = new java.util.LinkedHashMap<>();
    static boolean unitEnv = true;
    static boolean keepAlive = false;
    static boolean curve = false;
    static boolean installArchive = false;
    static int pauseMs = 0;
    static boolean keepWork = false;

    public static void main(String[] args) throws Exception {
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--jar" -> jar = Path.of(args[++i]);
                case "--unit" -> unit = Path.of(args[++i]);
                case "--opts" -> opts = args[++i];
                case "--add-opts" -> extraOpts = args[++i];
                case "--requests" -> requests = Integer.parseInt(args[++i]);
                case "--tokens" -> tokens = Integer.parseInt(args[++i]);
                case "--starts" -> starts = Integer.parseInt(args[++i]);
                case "--idle-seconds" -> idleSeconds = Math.max(1, Integer.parseInt(args[++i]));
                case "--warmup" -> warmup = Integer.parseInt(args[++i]);
                case "--env" -> {
                    String kv = args[++i];
                    env.put(kv.substring(0, kv.indexOf('=')), kv.substring(kv.indexOf('=') + 1));
                }
                case "--no-unit-env" -> unitEnv = false;
                case "--keep-alive" -> keepAlive = true;
                case "--curve" -> curve = true;
                case "--install-archive" -> installArchive = true;
                case "--pause-ms" -> pauseMs = Integer.parseInt(args[++i]);
                case "--keep-work" -> keepWork = true;
                case "--help", "-h" -> {
                    System.out.println("""
                            usage: scripts/bench-footprint [--jar JAR] [--unit FILE] [--opts "JVM OPTIONS"]
                                   [--add-opts "MORE OPTIONS"] [--requests N] [--tokens N] [--starts N]
                                   [--env NAME=VALUE] [--no-unit-env] [--idle-seconds N] [--warmup N]
                                   [--keep-alive] [--curve] [--install-archive] [--pause-ms N] [--keep-work]
                              --opts      JVM options instead of the unit's RKLLM_JAVA_OPTS
                              --add-opts  options added after them (to try a flag)
                              --env       an environment variable for the server (after the unit's own
                                          Environment= settings, which --no-unit-env leaves out)
                              --starts    server starts (default 2: the first creates the CDS archive,
                                          the next ones use it, as the service does after its first stop)
                              --idle-seconds  how long after ready the idle RSS is read (default 12; the
                                          RSS 1 s after ready is reported too)
                              --warmup    answers streamed (not measured) before the measured ones, to
                                          measure a server whose JIT has compiled the request path
                                          (default 0: the first answers after a start)
                              --keep-alive  all answers on one kept-alive connection, as Open WebUI and the
                                          OpenAI SDKs connect (default: a new connection each, as curl)
                              --curve     also print the TTFB median of each tenth of the answers
                              --install-archive  create the class-data-sharing archive first, as the package
                                          does at installation (`rkllm-server cds-archive` with the same
                                          flags), instead of letting the first start create it
                              --pause-ms  a pause between two measured answers (default 0: one right after
                                          the other); a board's NPU takes seconds per answer
                              --keep-work keep the working directory (the server's log, the archive)""");
                    return;
                }
                default -> throw new IllegalArgumentException("unknown argument " + args[i] + " (see --help)");
            }
        }
        if (!Files.isRegularFile(jar)) {
            throw new IllegalStateException(jar + " does not exist: scripts/build -q package -DskipTests");
        }
        Path work = Files.createTempDirectory("rkllm-bench-footprint-");
        List<String> jvm = new ArrayList<>();
        String options = opts != null ? opts : unitOptions(unit);
        for (String o : (options + " " + extraOpts).trim().split(" +")) {
            jvm.add(o.replace("/var/lib/rkllm-server/", work + "/"));
        }
        System.out.println("machine: " + machine() + "; load average " + loadAverage());
        System.out.println("java:    " + System.getProperty("java.home") + " (" + Runtime.version() + ")");
        System.out.println("jar:     " + jar + " (" + Files.size(jar) / (1024 * 1024) + " MiB)");
        if (unitEnv && opts == null) {
            java.util.Map<String, String> merged = unitEnvironment(unit);
            merged.putAll(env);
            env = merged;
        }
        System.out.println("flags:   " + String.join(" ", jvm));
        System.out.println("env:     " + (env.isEmpty() ? "(none)" : env));
        System.out.println("load:    " + (warmup > 0 ? warmup + " answers to warm up, then " : "") + requests
                + " streamed answers of " + tokens + " tokens, one at a time,"
                + " simulated runtime at zero latency (RKLLM_SIM_TIME_SCALE=0)");
        System.out.println();
        if (installArchive) {
            long t = System.nanoTime();
            List<String> command = new ArrayList<>();
            command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
            command.addAll(jvm);
            command.addAll(List.of("-jar", jar.toString(), "cds-archive"));
            ProcessBuilder pb = new ProcessBuilder(command).directory(work.toFile()).redirectErrorStream(true)
                    .redirectOutput(work.resolve("cds-archive.log").toFile());
            pb.environment().put("RKLLM_SIM_TIME_SCALE", "0");
            pb.environment().put("HOME", work.toString());
            int code = pb.start().waitFor();
            System.out.printf(Locale.ROOT, "archive: `rkllm-server cds-archive` exited with %d after %.1f s%n", code,
                    (System.nanoTime() - t) / 1e9);
            System.out.println();
        }
        System.out.printf("%-5s %-8s %9s %9s %9s %9s %9s %9s %11s %9s%n", "start", "CDS", "ready ms", "1s MB",
                "idle MB", "after MB", "ttfb p50", "ttfb p95", "tokens/s", "stop ms");
        for (int s = 1; s <= starts; s++) {
            boolean archive = jvm.stream().anyMatch(o -> o.startsWith("-XX:SharedArchiveFile="))
                    && jvm.stream().filter(o -> o.startsWith("-XX:SharedArchiveFile=")).map(o -> Path.of(
                    o.substring(o.indexOf('=') + 1))).allMatch(Files::exists);
            Result r = run(jvm, work);
            System.out.printf(Locale.ROOT, "%-5d %-8s %9d %9.1f %9.1f %9.1f %9.3f %9.3f %11.0f %9d%n", s,
                    archive ? "archive" : "none", r.readyMs, r.earlyKb / 1024.0, r.idleKb / 1024.0, r.afterKb / 1024.0, r.ttfbP50Ms,
                    r.ttfbP95Ms, r.tokensPerSecond, r.stopMs);
        }
        System.out.println();
        if (keepWork) {
            System.out.println("work directory (server.log, archive): " + work);
        } else {
            try (var paths = Files.walk(work)) {
                for (Path p : paths.sorted(java.util.Comparator.reverseOrder()).toList()) {
                    Files.deleteIfExists(p);
                }
            }
        }
        System.out.println("load average at the end: " + loadAverage());
        System.out.println("ready: process start to the first 200 from /health; 1s: VmRSS 1 s after ready; idle: VmRSS "
                + idleSeconds + " s after ready; after: VmRSS"
                + " after the answers; ttfb: request written on an open connection"
                + (keepAlive ? " (one kept alive for all answers)" : " (a new one per answer)") + " to the end of the response headers (ms); stop: SIGTERM to exit (ms)");
    }

    record Result(long readyMs, long earlyKb, long idleKb, long afterKb, double ttfbP50Ms, double ttfbP95Ms,
                  double tokensPerSecond, long stopMs) {
    }

    static Result run(List<String> jvm, Path work) throws Exception {
        int port;
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            port = s.getLocalPort();
        }
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.addAll(jvm);
        command.addAll(List.of("-jar", jar.toString(), "serve", "--simulate", "--host", "127.0.0.1",
                "--port", Integer.toString(port)));
        ProcessBuilder pb = new ProcessBuilder(command).directory(work.toFile()).redirectErrorStream(true)
                .redirectOutput(work.resolve("server.log").toFile());
        pb.environment().put("RKLLM_SIM_TIME_SCALE", "0");
        pb.environment().putAll(env);
        pb.environment().put("HOME", work.toString());
        HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
        URI health = URI.create("http://127.0.0.1:" + port + "/health");
        long t0 = System.nanoTime();
        Process server = pb.start();
        try {
            long readyNs = -1;
            while (System.nanoTime() - t0 < TimeUnit.SECONDS.toNanos(60)) {
                if (!server.isAlive()) {
                    throw new IllegalStateException("the server exited: " + Files.readString(work.resolve("server.log")));
                }
                try {
                    HttpResponse<Void> r = client.send(HttpRequest.newBuilder(health).GET().build(),
                            HttpResponse.BodyHandlers.discarding());
                    if (r.statusCode() == 200) {
                        readyNs = System.nanoTime() - t0;
                        break;
                    }
                } catch (IOException e) {
                    // not listening yet
                }
                Thread.sleep(2);
            }
            if (readyNs < 0) {
                throw new IllegalStateException("not ready within 60 s");
            }
            Thread.sleep(1000);
            long early = rssKb(server.pid());
            // the JVM frees its JIT compiler's scratch memory a few seconds after start (a 5 s housekeeping
            // period) and the unit's -XX:TrimNativeHeapInterval hands it back to the system: idle is the RSS
            // of a server that has settled, as on a board where it waits for requests
            Thread.sleep(TimeUnit.SECONDS.toMillis(idleSeconds) - 1000);
            long idle = rssKb(server.pid());

            URI chat = URI.create("http://127.0.0.1:" + port + "/v1/chat/completions");
            String body = "{\"model\":\"qwen2.5-0.5b-sim\",\"stream\":true,\"max_tokens\":" + tokens
                    + ",\"stream_options\":{\"include_usage\":true},"
                    + "\"messages\":[{\"role\":\"user\",\"content\":\"[[tokens:" + tokens + "]]\"}]}";
            Client answers = new Client(chat, keepAlive);
            answers.stream(body);   // loads the model; not measured
            for (int i = 0; i < warmup; i++) {
                answers.stream(body);
            }
            double[] ttfb = new double[requests];
            long generated = 0;
            long streamingNs = 0;
            for (int i = 0; i < requests; i++) {
                if (pauseMs > 0 && i > 0) {
                    Thread.sleep(pauseMs);
                }
                long start = System.nanoTime();
                long[] r = answers.stream(body);
                ttfb[i] = r[0] / 1e6;
                generated += r[1];
                streamingNs += System.nanoTime() - start;
            }
            answers.close();
            long after = rssKb(server.pid());
            if (curve) {
                StringBuilder tenths = new StringBuilder("  ttfb p50 by tenth of the answers (ms):");
                int size = Math.max(1, requests / 10);
                for (int from = 0; from + size <= requests; from += size) {
                    double[] part = Arrays.copyOfRange(ttfb, from, from + size);
                    Arrays.sort(part);
                    tenths.append(String.format(Locale.ROOT, " %.2f", percentile(part, 50)));
                }
                System.out.println(tenths);
            }
            Arrays.sort(ttfb);
            long stopStart = System.nanoTime();
            server.toHandle().destroy();
            if (!server.waitFor(60, TimeUnit.SECONDS)) {
                server.destroyForcibly();
            }
            long stopMs = (System.nanoTime() - stopStart) / 1_000_000;
            if (server.exitValue() != 0) {
                System.out.println("(the server exited with " + server.exitValue() + ")");
            }
            return new Result(readyNs / 1_000_000, early, idle, after, percentile(ttfb, 50), percentile(ttfb, 95),
                    generated / (streamingNs / 1e9), stopMs);
        } finally {
            if (server.isAlive()) {
                server.destroyForcibly();
            }
        }
    }

    /**
     * Streamed answers over plain sockets, the way curl times them: the clock starts when the request is
     * written on an open connection and stops at the end of the response headers, so neither the TCP
     * connect nor an HTTP client library's own overhead is counted. A new connection per answer (as curl),
     * or one kept alive for all of them (as Open WebUI's and the OpenAI SDKs' connection pools).
     */
    static final class Client implements AutoCloseable {
        private final URI uri;
        private final boolean keepAlive;
        private java.net.Socket socket;

        Client(URI uri, boolean keepAlive) {
            this.uri = uri;
            this.keepAlive = keepAlive;
        }

        /** One answer; returns {time to response headers in ns, completion tokens}. */
        long[] stream(String body) throws IOException {
            byte[] payload = body.getBytes(StandardCharsets.UTF_8);
            String head = "POST " + uri.getPath() + " HTTP/1.1\r\nHost: " + uri.getHost() + ":" + uri.getPort()
                    + "\r\nContent-Type: application/json\r\nContent-Length: " + payload.length
                    + (keepAlive ? "" : "\r\nConnection: close") + "\r\n\r\n";
            if (socket == null) {
                socket = new java.net.Socket(uri.getHost(), uri.getPort());
                socket.setTcpNoDelay(true);
            }
            try {
                java.io.OutputStream out = socket.getOutputStream();
                InputStream in = socket.getInputStream();
                byte[] request = new byte[head.length() + payload.length];
                System.arraycopy(head.getBytes(StandardCharsets.US_ASCII), 0, request, 0, head.length());
                System.arraycopy(payload, 0, request, head.length(), payload.length);
                long start = System.nanoTime();
                out.write(request);
                out.flush();
                java.io.ByteArrayOutputStream received = new java.io.ByteArrayOutputStream(64 * 1024);
                byte[] buffer = new byte[16 * 1024];
                long ttfb = -1;
                for (int n; (n = in.read(buffer)) > 0; ) {
                    received.write(buffer, 0, n);
                    if (ttfb < 0 && received.toString(StandardCharsets.ISO_8859_1).contains("\r\n\r\n")) {
                        ttfb = System.nanoTime() - start;
                    }
                    // a kept-alive connection stays open: the response ends with the last (empty) chunk
                    if (keepAlive && ttfb >= 0 && received.toString(StandardCharsets.ISO_8859_1).endsWith("\r\n0\r\n\r\n")) {
                        break;
                    }
                }
                String text = received.toString(StandardCharsets.UTF_8);
                if (!text.startsWith("HTTP/1.1 200")) {
                    throw new IllegalStateException(text.substring(0, Math.min(400, text.length())));
                }
                int usage = text.lastIndexOf("\"completion_tokens\":");
                boolean done = text.contains("data: [DONE]");
                long completion = usage < 0 ? -1
                        : Long.parseLong(text.substring(usage + 20).replaceAll("^\\s*(\\d+)(?s).*$", "$1"));
                if (!done || completion < 0) {
                    throw new IllegalStateException("incomplete stream (done " + done + ", tokens " + completion + ")");
                }
                return new long[] {ttfb, completion};
            } finally {
                if (!keepAlive) {
                    close();
                }
            }
        }

        @Override
        public void close() throws IOException {
            if (socket != null) {
                socket.close();
                socket = null;
            }
        }
    }

    static double percentile(double[] sorted, int p) {
        int index = (int) Math.ceil(p / 100.0 * sorted.length) - 1;
        return sorted[Math.max(0, Math.min(sorted.length - 1, index))];
    }

    static long rssKb(long pid) throws IOException {
        for (String line : Files.readAllLines(Path.of("/proc/" + pid + "/status"))) {
            if (line.startsWith("VmRSS:")) {
                return Long.parseLong(line.replaceAll("\\D", ""));
            }
        }
        throw new IllegalStateException("no VmRSS for " + pid);
    }

    static String unitOptions(Path unitFile) throws IOException {
        for (String line : Files.readAllLines(unitFile)) {
            String l = line.strip();
            if (l.startsWith("Environment=\"RKLLM_JAVA_OPTS=")) {
                return l.substring("Environment=\"RKLLM_JAVA_OPTS=".length(), l.length() - 1);
            }
        }
        throw new IllegalStateException("no Environment=\"RKLLM_JAVA_OPTS=...\" in " + unitFile);
    }

    /** The unit's Environment= settings other than HOME and RKLLM_JAVA_OPTS (e.g. MALLOC_ARENA_MAX). */
    static java.util.Map<String, String> unitEnvironment(Path unitFile) throws IOException {
        java.util.Map<String, String> found = new java.util.LinkedHashMap<>();
        for (String line : Files.readAllLines(unitFile)) {
            String l = line.strip();
            if (l.startsWith("Environment=")) {
                String kv = l.substring("Environment=".length()).replace("\"", "");
                String name = kv.substring(0, kv.indexOf('='));
                if (!name.equals("HOME") && !name.equals("RKLLM_JAVA_OPTS")) {
                    found.put(name, kv.substring(kv.indexOf('=') + 1));
                }
            }
        }
        return found;
    }

    static String loadAverage() {
        try {
            return Files.readString(Path.of("/proc/loadavg")).strip().replaceAll("^(\\S+ \\S+ \\S+).*$", "$1");
        } catch (IOException e) {
            return "?";
        }
    }

    static String machine() {
        String cpu = "?";
        try {
            for (String line : Files.readAllLines(Path.of("/proc/cpuinfo"))) {
                if (line.startsWith("model name")) {
                    cpu = line.substring(line.indexOf(':') + 1).strip();
                    break;
                }
            }
        } catch (IOException e) {
            // keep "?"
        }
        return System.getProperty("os.arch") + ", " + Runtime.getRuntime().availableProcessors() + " CPUs (" + cpu
                + "), " + System.getProperty("os.name") + " " + System.getProperty("os.version");
    }
}
