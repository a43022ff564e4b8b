package io.rkllm.tools.reliability;

import io.rkllm.ffm.Abi;
import io.rkllm.server.config.CommandLine;
import io.rkllm.server.config.ConfigException;
import io.rkllm.server.harness.Health;
import io.rkllm.server.harness.LocalServer;
import io.rkllm.server.harness.RawHttp;
import java.io.IOException;
import java.io.PrintStream;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;

/**
 * {@code rkllm-server fuzz} and {@code rkllm-server soak}: against {@code --url}, or against a server
 * started in this process on the simulated runtime (with its trace, so run order and outcomes are
 * checked too). Exit code 0 when every check passed, 1 otherwise.
 */
public final class ReliabilityCommands {
    private final PrintStream out;

    public ReliabilityCommands(PrintStream out) {
        this.out = out;
    }

    /** {@code fuzz [--url URL] [--cases N] [--seed S] [--first N] [--concurrency C] [--timeout 20s] [--key KEY] [--model ID]}. */
    public int fuzz(CommandLine line) throws InterruptedException, IOException {
        Map<String, String> o = new LinkedHashMap<>(line.commandOptions());
        String url = o.remove("url");
        int cases = integer(o.remove("cases"), 5000);
        long seed = Long.parseLong(o.getOrDefault("seed", Long.toString(System.currentTimeMillis() % 1_000_000)));
        o.remove("seed");
        int first = integer(o.remove("first"), 0);
        int concurrency = integer(o.remove("concurrency"), 1);
        Duration timeout = Duration.ofSeconds(integer(o.remove("timeout"), 20));
        String key = o.remove("key");
        String model = o.remove("model");
        unknown(o, "fuzz");
        LocalServer local = null;
        try {
            String host;
            int port;
            List<String> models;
            if (url == null) {
                Map<String, String> flags = new LinkedHashMap<>(line.configFlags());
                flags.putIfAbsent("limits.max_body_mb", "1");
                flags.putIfAbsent("models.max_loaded", "2");
                local = LocalServer.startInTemporaryDirectory("rkllm-fuzz-", Abi.V1_3, Map.of(
                                "qwen3-1.7b-sim", Map.of("thinking", "1", "time_scale", "0"),
                                "small-sim", Map.of("reply_tokens", "12", "time_scale", "0"),
                                "embed-sim", Map.of("kind", "embedding", "embd_size", "8", "time_scale", "0")),
                        Map.of("qwen3-1.7b-sim", "family: qwen3\ncapabilities: {thinking: true, tools: true}\n",
                                "embed-sim", "kind: embedding\nfamily: qwen3-embedding\n"),
                        flags);
                host = "127.0.0.1";
                port = local.port();
                models = List.of("qwen3-1.7b-sim", "small-sim", "embed-sim");
                String keys = flags.get("security.api_keys");
                if (key == null && keys != null) {
                    key = keys.split(",")[0].strip();
                }
                out.println("fuzz: server on the simulated runtime at http://127.0.0.1:" + port);
            } else {
                URI uri = URI.create(url);
                host = uri.getHost();
                port = uri.getPort() < 0 ? 80 : uri.getPort();
                models = model == null ? List.of() : List.of(model.split(","));
            }
            int huge = url == null ? 1_200_000 : 17 * 1024 * 1024;
            out.println("fuzz: " + cases + " cases from " + first + ", seed " + seed + ", concurrency " + concurrency
                    + ", timeout " + timeout.toSeconds() + " s, models " + models);
            Fuzzer.Result result = new Fuzzer(new Fuzzer.Options(host, port, seed, cases, first, timeout, concurrency,
                    models, key, huge)).run();
            out.println("fuzz: " + result.summary());
            result.failures().stream().limit(50).forEach(f -> out.println("  " + f));
            if (!result.failures().isEmpty()) {
                out.println("replay one case: fuzz --seed " + seed + " --first N --cases 1");
            }
            return result.passed() ? 0 : 1;
        } finally {
            if (local != null) {
                local.close();
            }
        }
    }

    /**
     * {@code soak [--url URL --model ID [--trace FILE] [--pid PID]] [--requests N] [--clients C]
     * [--disconnects 0.3] [--non-streaming 0.15] [--rounds 2] [--padding WORDS] [--seed S] [--timeout 120s]
     * [--key KEY] [--prefill-tps 2500] [--decode-tps 400]}.
     */
    public int soak(CommandLine line) throws InterruptedException, IOException {
        Map<String, String> o = new LinkedHashMap<>(line.commandOptions());
        String url = o.remove("url");
        int requests = integer(o.remove("requests"), 400);
        int clients = integer(o.remove("clients"), 16);
        double disconnects = Double.parseDouble(o.getOrDefault("disconnects", "0.3"));
        o.remove("disconnects");
        double nonStreaming = Double.parseDouble(o.getOrDefault("non-streaming", "0.15"));
        o.remove("non-streaming");
        int rounds = integer(o.remove("rounds"), 2);
        int padding = integer(o.remove("padding"), 300);
        long seed = Long.parseLong(o.getOrDefault("seed", "1"));
        o.remove("seed");
        Duration timeout = Duration.ofSeconds(integer(o.remove("timeout"), 120));
        String key = o.remove("key");
        String model = o.remove("model");
        String trace = o.remove("trace");
        String pid = o.remove("pid");
        int prefillTps = integer(o.remove("prefill-tps"), 2500);
        int decodeTps = integer(o.remove("decode-tps"), 400);
        unknown(o, "soak");
        LocalServer local = null;
        try {
            String host;
            int port;
            Path traceFile = trace == null ? null : Path.of(trace);
            if (url == null) {
                Map<String, String> flags = new LinkedHashMap<>(line.configFlags());
                flags.putIfAbsent("queue.max_waiting", Integer.toString(Math.max(16, clients)));
                flags.putIfAbsent("queue.keep_alive", "2s");
                model = "soak-sim";
                local = LocalServer.startInTemporaryDirectory("rkllm-soak-", Abi.V1_3, Map.of(model, Map.of(
                        "prefill_tps", Integer.toString(prefillTps), "decode_tps", Integer.toString(decodeTps),
                        "init_ms", "500", "thinking", "0")), Map.of(), flags);
                host = "127.0.0.1";
                port = local.port();
                traceFile = local.traceFile(model);
                String keys = flags.get("security.api_keys");
                if (key == null && keys != null) {
                    key = keys.split(",")[0].strip();
                }
                out.println("soak: server on the simulated runtime at http://127.0.0.1:" + port
                        + " (prefill " + prefillTps + " tok/s, decode " + decodeTps + " tok/s)");
            } else {
                if (model == null) {
                    throw new ConfigException("soak --url needs --model ID");
                }
                URI uri = URI.create(url);
                host = uri.getHost();
                port = uri.getPort() < 0 ? 80 : uri.getPort();
            }
            Map<String, String> auth = key == null ? Map.of() : Map.of("Authorization", "Bearer " + key);
            RawHttp.exchange(host, port, RawHttp.request("POST", "/v1/models/" + model + "/load", auth, new byte[0]),
                    Duration.ofMinutes(3));
            out.println("soak: " + rounds + " round(s) of " + requests + " requests from " + clients + " clients, "
                    + Math.round(disconnects * 100) + "% hanging up, " + Math.round(nonStreaming * 100)
                    + "% non-streaming, seed " + seed);
            boolean passed = true;
            List<ProcessStats> stats = new ArrayList<>();
            ProcessStats idle = stats(pid, local != null);
            out.println("soak: idle: " + idle.describe());
            stats.add(idle);
            for (int round = 1; round <= rounds; round++) {
                Soak.Report report = new Soak(new Soak.Options(host, port, model, requests, clients, disconnects,
                        nonStreaming, seed + round, timeout, padding, key, traceFile, 100)).run();
                out.println("soak: round " + round + ": " + report.summary());
                report.failures().stream().limit(20).forEach(f -> out.println("  failure: " + f));
                report.wrongAnswers().stream().limit(20).forEach(f -> out.println("  wrong: " + f));
                report.fifoViolations().stream().limit(20).forEach(f -> out.println("  fifo: " + f));
                passed &= report.passed();
                var health = Health.waitIdle(host, port, Duration.ofSeconds(30), auth);
                boolean idleNow = Health.isIdle(health);
                out.println("soak: round " + round + ": afterwards " + (idleNow ? "idle" : "NOT idle") + ": " + health);
                passed &= idleNow;
                ProcessStats now = local != null ? ProcessStats.waitForThreads(idle, 2, Duration.ofSeconds(70))
                        : stats(pid, false);
                out.println("soak: round " + round + ": " + now.describe());
                stats.add(now);
            }
            ProcessStats last = stats.getLast();
            if (last.javaThreads() >= 0 && last.javaThreads() > idle.javaThreads() + 2) {
                out.println("soak: LEAK: " + (last.javaThreads() - idle.javaThreads()) + " more platform threads than idle");
                passed = false;
            }
            if (stats.size() >= 3) {
                ProcessStats warm = stats.get(1);
                out.println("soak: growth from round 1 to round " + rounds + ": RSS "
                        + (last.rssKb() - warm.rssKb()) / 1024 + " MB, threads " + (last.osThreads() - warm.osThreads())
                        + (warm.nmtMallocKb().isPresent() && last.nmtMallocKb().isPresent() ? ", NMT malloc "
                        + (last.nmtMallocKb().getAsLong() - warm.nmtMallocKb().getAsLong()) + " KB" : ""));
            }
            out.println("soak: " + (passed ? "PASSED" : "FAILED"));
            return passed ? 0 : 1;
        } finally {
            if (local != null) {
                local.close();
            }
        }
    }

    private static ProcessStats stats(String pid, boolean self) {
        if (pid != null) {
            return ProcessStats.of(Long.parseLong(pid));
        }
        return self ? ProcessStats.self() : new ProcessStats(-1, -1, -1, -1, OptionalLong.empty(),
                OptionalLong.empty());
    }

    private static int integer(String value, int fallback) {
        if (value == null) {
            return fallback;
        }
        try {
            return Integer.parseInt(value.strip().replaceAll("s$", ""));
        } catch (NumberFormatException e) {
            throw new ConfigException("'" + value + "' is not a whole number");
        }
    }

    private static void unknown(Map<String, String> options, String command) {
        if (!options.isEmpty()) {
            throw new ConfigException("--" + options.keySet().iterator().next() + ": unknown option for " + command);
        }
    }
}
