package io.rkllm.server.tools.launch;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.rkllm.server.config.ServerConfig;
import java.io.File;
import java.io.IOException;
import java.io.PrintStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Stream;

/**
 * {@code rkllm-server launch claude|codex|opencode|continue [--model M] [--url URL] [--key KEY] [--dry-run]
 * [-- ARGS]}: starts the user's installed agent client against a running server, as {@code ollama launch} does, with
 * the base URL, model and settings it needs and its telemetry off; prints what it set; writes nothing outside a
 * temporary directory, removed when the client exits. Its exit code is the client's.
 */
public final class LaunchCommand {
    static final int OK = 0;
    static final int FAILED = 1;
    static final int USAGE = 2;
    private static final ObjectMapper JSON = new ObjectMapper();

    /** What the command line asked for. */
    public record Request(String client, Optional<String> model, Optional<String> url, Optional<String> key,
                          boolean dryRun, List<String> clientArguments) {
    }

    private final Map<String, String> environment;
    private final PrintStream out;
    private final PrintStream err;

    public LaunchCommand(Map<String, String> environment, PrintStream out, PrintStream err) {
        this.environment = environment;
        this.out = out;
        this.err = err;
    }

    public int run(Request request, ServerConfig config) {
        Optional<AgentClient> client = AgentClients.all().stream().filter(c -> c.name().equals(request.client()))
                .findFirst();
        if (client.isEmpty()) {
            err.println("rkllm-server launch: unknown client '" + request.client() + "' (clients: "
                    + String.join(", ", AgentClients.all().stream().map(AgentClient::name).toList()) + ")");
            return USAGE;
        }
        String base = request.url().map(LaunchCommand::withoutV1).orElseGet(() -> localUrl(config.server()));
        if (!validUrl(base)) {
            err.println("rkllm-server launch: --url " + base + " is not an http(s) URL with a host (e.g."
                    + " http://192.168.1.50:8080)");
            return USAGE;
        }
        Optional<String> key = request.key().or(() -> configuredKey(config.security()));
        List<JsonNode> models;
        try {
            models = models(base, key);
        } catch (IOException e) {
            err.println("rkllm-server launch: no server answers at " + base + " (" + (e.getMessage() == null
                    ? e.getClass().getSimpleName() : e.getMessage()) + "): start it"
                    + " first (`rkllm-server`, or `sudo systemctl start rkllm-server`), or name it with --url");
            return FAILED;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return FAILED;
        }
        Optional<JsonNode> model = request.model().isPresent() ? named(models, request.model().get())
                : ModelChoice.forAgents(models);
        if (model.isEmpty()) {
            err.println("rkllm-server launch: " + (request.model().isPresent()
                    ? "no chat model '" + request.model().get() + "' at " + base : "no chat model with tool calling"
                    + " at " + base + " (capabilities.tools in a model's model.yaml)") + "; models: "
                    + String.join(", ", models.stream().map(m -> m.path("id").asText()).toList()));
            return FAILED;
        }
        Target target = new Target(base, key, model.get().path("id").asText(),
                model.get().path("context_length").asInt(0));
        Optional<Path> program = onPath(client.get().program());
        Path work;
        try {
            work = Files.createTempDirectory("rkllm-launch-");
        } catch (IOException e) {
            err.println("rkllm-server launch: cannot make a temporary directory: " + e.getMessage());
            return FAILED;
        }
        try {
            LaunchPlan plan = client.get().plan(target, work, request.clientArguments());
            describe(client.get(), target, plan, program);
            if (request.dryRun()) {
                return OK;
            }
            if (program.isEmpty()) {
                err.println("rkllm-server launch: '" + client.get().program() + "' is not on the PATH; install it: "
                        + client.get().installHint());
                return FAILED;
            }
            return start(program.get(), plan, work);
        } catch (IOException e) {
            err.println("rkllm-server launch: " + e.getMessage());
            return FAILED;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return FAILED;
        } finally {
            delete(work);
        }
    }

    private int start(Path program, LaunchPlan plan, Path work) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>();
        command.add(program.toString());
        command.addAll(plan.arguments());
        ProcessBuilder builder = new ProcessBuilder(command).inheritIO();
        builder.environment().putAll(plan.environment());
        builder.environment().put("RKLLM_LAUNCH_DIR", work.toString());
        Process process = builder.start();
        // Ctrl-C or a kill ends this JVM without its finally blocks: the agent goes too, and the temporary
        // directory (an agent's configuration may hold the API key) with it
        Thread cleanup = new Thread(() -> {
            process.destroy();
            delete(work);
        }, "launch-cleanup");
        Runtime.getRuntime().addShutdownHook(cleanup);
        try {
            return process.waitFor();
        } catch (InterruptedException e) {
            process.destroy();
            throw e;
        } finally {
            try {
                Runtime.getRuntime().removeShutdownHook(cleanup);
            } catch (IllegalStateException shuttingDown) {
                // the hook runs anyway
            }
        }
    }

    private static boolean validUrl(String url) {
        try {
            URI uri = URI.create(url);
            return ("http".equalsIgnoreCase(uri.getScheme()) || "https".equalsIgnoreCase(uri.getScheme()))
                    && uri.getHost() != null && !uri.getHost().isBlank();
        } catch (IllegalArgumentException e) {
            return false;
        }
    }

    /** What is set, before the client starts: the user sees exactly how it was pointed at the server. */
    private void describe(AgentClient client, Target target, LaunchPlan plan, Optional<Path> program) {
        out.println("rkllm-server launch: " + client.name() + " -> " + target.baseUrl() + ", model " + target.model()
                + " (context " + target.contextLength() + " tokens)");
        out.println("  program: " + program.map(Path::toString).orElse(client.program() + " (not installed: "
                + client.installHint() + ")"));
        for (Map.Entry<String, String> e : plan.environment().entrySet().stream()
                .sorted(Map.Entry.comparingByKey()).toList()) {
            out.println("  env " + e.getKey() + "=" + shown(e.getKey(), e.getValue(), target));
        }
        if (!plan.arguments().isEmpty()) {
            out.println("  args " + String.join(" ", plan.arguments().stream().map(LaunchCommand::quoted).toList()));
        }
        for (Path file : plan.files()) {
            out.println("  file " + file + " (removed when " + client.program() + " exits)");
        }
        ModelChoice.contextNote(client.name(), target.contextLength()).ifPresent(n -> out.println("  note: " + n));
    }

    private static String shown(String name, String value, Target target) {
        if (target.apiKey().isPresent() && value.contains(target.apiKey().get())) {
            return value.replace(target.apiKey().get(), "<api key>");
        }
        return value;
    }

    private static String quoted(String arg) {
        return arg.isEmpty() || arg.chars().anyMatch(c -> " \"'$\\".indexOf(c) >= 0) ? "'" + arg.replace("'", "'\\''")
                + "'" : arg;
    }

    private List<JsonNode> models(String base, Optional<String> key) throws IOException, InterruptedException {
        HttpRequest.Builder get = HttpRequest.newBuilder(URI.create(base + "/v1/models"))
                .timeout(Duration.ofSeconds(10)).GET();
        key.ifPresent(k -> get.header("Authorization", "Bearer " + k));
        HttpResponse<String> response;
        try (HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build()) {
            response = http.send(get.build(), HttpResponse.BodyHandlers.ofString());
        }
        if (response.statusCode() != 200) {
            throw new IOException("GET /v1/models answered " + response.statusCode()
                    + (response.statusCode() == 401 ? ": give the server's API key with --key" : ""));
        }
        List<JsonNode> list = new ArrayList<>();
        JSON.readTree(response.body()).path("data").forEach(list::add);
        return list;
    }

    private static Optional<JsonNode> named(List<JsonNode> models, String name) {
        for (JsonNode m : models) {
            if (m.path("id").asText().equals(name)) {
                return Optional.of(m);
            }
            for (JsonNode alias : m.path("aliases")) {
                if (alias.asText().equals(name)) {
                    return Optional.of(m);
                }
            }
        }
        return Optional.empty();
    }

    /** The server this machine runs, by its configuration: a wildcard address is reached on loopback. */
    static String localUrl(ServerConfig.Server server) {
        String host = server.host();
        if (host.isBlank() || host.equals("0.0.0.0") || host.equals("::") || host.equals("[::]")) {
            host = "127.0.0.1";
        } else if (host.contains(":") && !host.startsWith("[")) {
            host = "[" + host + "]";
        }
        return "http://" + host + ":" + server.port();
    }

    private static String withoutV1(String url) {
        String u = url.endsWith("/") ? url.substring(0, url.length() - 1) : url;
        return u.toLowerCase(Locale.ROOT).endsWith("/v1") ? u.substring(0, u.length() - 3) : u;
    }

    /** The first key the server's own configuration has (a key list, else the key file's first key). */
    private static Optional<String> configuredKey(ServerConfig.Security security) {
        if (!security.apiKeys().isEmpty()) {
            return Optional.of(security.apiKeys().getFirst());
        }
        if (security.apiKeyFile() == null || security.apiKeyFile().isBlank()) {
            return Optional.empty();
        }
        try (Stream<String> lines = Files.lines(Path.of(security.apiKeyFile()))) {
            return lines.map(String::strip).filter(l -> !l.isEmpty() && !l.startsWith("#")).findFirst();
        } catch (IOException | RuntimeException e) {
            return Optional.empty();
        }
    }

    private Optional<Path> onPath(String program) {
        String path = environment.getOrDefault("PATH", "");
        for (String dir : path.split(File.pathSeparator)) {
            if (dir.isEmpty()) {
                continue;
            }
            Path candidate = Path.of(dir, program);
            if (Files.isRegularFile(candidate) && Files.isExecutable(candidate)) {
                return Optional.of(candidate);
            }
        }
        return Optional.empty();
    }

    private static void delete(Path dir) {
        try (Stream<Path> walk = Files.walk(dir)) {
            walk.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException e) {
            // a temporary directory left behind is harmless
        }
    }
}
