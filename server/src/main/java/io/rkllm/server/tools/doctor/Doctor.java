package io.rkllm.server.tools.doctor;

import io.rkllm.server.app.EngineProviders;
import io.rkllm.server.app.Engines;
import io.rkllm.server.app.ServerJar;
import io.rkllm.server.app.Simulation;
import io.rkllm.server.config.ConfigException;
import io.rkllm.server.config.ConfigLoader;
import io.rkllm.server.config.ServerConfig;
import io.rkllm.server.engine.contract.DoctorContext;
import io.rkllm.server.engine.contract.EngineProvider;
import io.rkllm.server.engine.contract.EngineSetup;
import io.rkllm.server.engine.contract.SystemRoots;
import io.rkllm.server.models.DiscoveryResult;
import io.rkllm.server.models.ModelDescriptor;
import io.rkllm.server.models.Problem;
import io.rkllm.server.pipeline.PromptFormat;
import io.rkllm.server.pipeline.SlotCount;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.net.BindException;
import java.net.HttpURLConnection;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * {@code rkllm-server doctor}: checks what serving needs (Java, configuration, the engines, models, the port, and for
 * an installed service its class-data-sharing archive) and says, one line each, what is wrong and how to fix it. Exit
 * code 1 when something blocks serving.
 *
 * <p>It reuses the server's own pieces ({@link ConfigLoader}, the engines' providers, their discovery and opening) so
 * that it judges exactly what {@code serve} would do. It knows no engine by name: each provider adds its own lines
 * (the RKLLM runtime its library, the CPU, the NPU; llama.cpp its library), {@link EngineLines}.
 */
public final class Doctor {
    public static final int OK = 0;
    public static final int BLOCKED = 1;
    public static final int USAGE = 2;
    /** The system user the packaged service runs as. */
    public static final String SERVICE_USER = "rkllm";

    private final SystemRoots roots;
    private final Map<String, String> environment;
    private final Path home;
    private final Supplier<Simulation> simulation;
    private final PrintStream out;
    private final List<EngineProvider> providers;

    /** What to check: the configuration file (if any), whether it was named with --config, flags and options. */
    public record Request(Optional<Path> configFile, boolean configFileGiven, Map<String, String> flags,
                          Map<String, String> options) {
        public Request {
            Objects.requireNonNull(configFile, "configFile");
            flags = Map.copyOf(flags);
            options = Map.copyOf(options);
        }
    }

    /** The doctor of the engines this server has ({@link EngineProviders#all()}). */
    public Doctor(SystemRoots roots, Map<String, String> environment, Path home, Supplier<Simulation> simulation,
                  PrintStream out) {
        this(roots, environment, home, simulation, out, EngineProviders.all());
    }

    /** The doctor of {@code providers}' engines. */
    public Doctor(SystemRoots roots, Map<String, String> environment, Path home, Supplier<Simulation> simulation,
                  PrintStream out, List<EngineProvider> providers) {
        this.providers = List.copyOf(providers);
        this.roots = Objects.requireNonNull(roots, "roots");
        this.environment = Map.copyOf(environment);
        this.home = Objects.requireNonNull(home, "home");
        this.simulation = Objects.requireNonNull(simulation, "simulation");
        this.out = Objects.requireNonNull(out, "out");
    }

    /** Prints the report; 0 when nothing blocks serving, 1 when something does, 2 for a bad option. */
    public int run(Request request) {
        for (String option : request.options().keySet()) {
            if (!option.equals("user")) {
                out.println("rkllm-server doctor: --" + option + ": unknown option (doctor takes --config, --simulate,"
                        + " --user NAME and the configuration flags)");
                return USAGE;
            }
        }
        out.println("rkllm-server doctor: checking what serving needs" + System.lineSeparator());
        List<Check> checks = checks(request);
        checks.forEach(c -> out.println(c.render()));
        long blocking = checks.stream().filter(c -> c.status() == Check.Status.FAIL).count();
        long warnings = checks.stream().filter(c -> c.status() == Check.Status.WARN).count();
        out.println();
        if (blocking == 0) {
            out.println("Nothing blocks serving" + (warnings == 0 ? "." : " (" + warnings + " warning"
                    + (warnings == 1 ? "" : "s") + " above)."));
            return OK;
        }
        out.println(blocking + " problem" + (blocking == 1 ? "" : "s") + " block" + (blocking == 1 ? "s" : "")
                + " serving: see the fix lines above.");
        return BLOCKED;
    }

    /** Every check, in report order. */
    public List<Check> checks(Request request) {
        List<Check> checks = new ArrayList<>();
        checks.add(java());
        ConfigLoader loader = new ConfigLoader(home, EngineProviders.settings(providers));
        ConfigLoader.Loaded loaded;
        try {
            if (request.configFileGiven() && request.configFile().isPresent()
                    && !Files.isRegularFile(request.configFile().get())) {
                throw new ConfigException("--config " + request.configFile().get() + ": no such file");
            }
            loaded = loader.load(request.configFile(), environment, request.flags());
            checks.add(Check.ok("config", loaded.file().map(f -> f.toAbsolutePath() + " is valid")
                    .orElse("no configuration file found; built-in defaults and flags apply")));
        } catch (ConfigException e) {
            checks.add(Check.fail("config", e.getMessage(), request.configFile().map(f -> "edit " + f.toAbsolutePath())
                    .orElse("correct the flag or environment variable") + " (`rkllm-server --help` lists every key)"));
            String simulate = request.flags().getOrDefault("runtime.simulate", "false");
            loaded = loader.load(Optional.empty(), Map.of(), Map.of("runtime.simulate",
                    Boolean.parseBoolean(simulate) ? "true" : "false"));
        }
        ServerConfig config = loaded.config();
        boolean simulated = config.runtime().simulate();
        Optional<Simulation> sim = simulated ? Optional.of(simulation.get()) : Optional.empty();
        try {
            checks.addAll(checks(request, loaded, config, sim));
        } finally {
            sim.ifPresent(Simulation::close);
        }
        return checks;
    }

    private List<Check> checks(Request request, ConfigLoader.Loaded loaded, ServerConfig config,
                               Optional<Simulation> sim) {
        List<Check> checks = new ArrayList<>();
        boolean simulatedModels = sim.isPresent() && loaded.simulatedModels();
        Path modelsDir = simulatedModels ? sim.get().models() : config.models().dir();
        EngineSetup setup = new EngineSetup(config, environment, sim.map(Simulation::directory),
                SlotCount.systemMemory(roots.resolve("/proc/meminfo")));
        DiscoveryResult discovery = EngineProviders.discovery(providers, setup).discover(modelsDir);
        Engines engines = Engines.openNow(providers, setup, discovery.models());
        String serviceUser = request.options().getOrDefault("user", SERVICE_USER);
        checks.addAll(new EngineLines(providers, setup, engines, discovery.models())
                .checks(new DoctorContext(roots, serviceUser, m -> PromptFormat.of(m).isPresent())));
        checks.addAll(models(discovery, modelsDir, simulatedModels));
        checks.add(port(config.server()));
        // the jar this runs from is the installed service's, when run as `rkllm-server doctor`
        new ArchiveCheck(roots).check(ServerJar.file()).ifPresent(checks::add);
        return checks;
    }

    static Check java() {
        Runtime.Version version = Runtime.version();
        String where = System.getProperty("java.vendor", "?") + ", " + System.getProperty("java.home", "?");
        if (version.feature() < 25) {
            return Check.fail("java", "Java " + version + " (" + where + ") is older than 25",
                    "install a Java 25 runtime (`sudo apt install openjdk-25-jre-headless`, or Temurin 25) and set"
                            + " JAVA_HOME");
        }
        if (!Doctor.class.getModule().isNativeAccessEnabled()) {
            return Check.warn("java", "Java " + version + " (" + where + "), but native access is not enabled",
                    "start with `java -jar rkllm-server.jar` (the jar enables it) or add"
                            + " --enable-native-access=ALL-UNNAMED");
        }
        return Check.ok("java", "Java " + version + " (" + where + ")");
    }

    private static List<Check> models(DiscoveryResult discovery, Path dir, boolean simulatedModels) {
        List<Check> checks = new ArrayList<>();
        String where = simulatedModels ? "simulated models" : dir.toString();
        for (ModelDescriptor m : discovery.models()) {
            checks.add(Check.ok("model", m.id() + ": context " + m.contextLength() + " (" + m.source() + ")"
                    + (m.capabilities().thinking() ? ", thinking" : "") + (m.capabilities().tools() ? ", tools" : "")
                    + m.vision().map(v -> ", vision (" + v.encoder().getFileName() + ")").orElse("")
                    + ", " + (m.sizeBytes() >= 1 << 20 ? (m.sizeBytes() >> 20) + " MiB" : m.sizeBytes() + " bytes")
                    + ", " + m.file()));
        }
        for (Problem w : discovery.warnings()) {
            checks.add(Check.warn("model", w.toString(), "see docs/models.md"));
        }
        String pull = "download one: rkllm-server pull OWNER/REPO[:QUANT] (e.g. rkllm-server pull"
                + " bartowski/Qwen2.5-1.5B-Instruct-GGUF; as the service's user: sudo -u rkllm rkllm-server pull ...),"
                + " or the chat page's download; docs/models.md recommends models for each board";
        for (Problem e : discovery.errors()) {
            boolean missing = e.path().equals(dir.toAbsolutePath().normalize()) && !Files.exists(dir);
            if (missing) {
                // a fresh install: the server starts without it, and the first pull creates it
                checks.add(Check.warn("model", "no model yet: " + e, pull + " (the pull creates " + dir
                        + "), or set models.dir (--models DIR) to where your models are"));
                continue;
            }
            String fix = e.path().equals(dir.toAbsolutePath().normalize())
                    ? "correct models.dir (--models DIR), or " + pull
                    : "correct the file (docs/models.md); the other models are served";
            checks.add(discovery.models().isEmpty() ? Check.fail("model", e.toString(), fix)
                    : Check.warn("model", e.toString(), fix));
        }
        if (discovery.models().isEmpty() && discovery.errors().isEmpty()) {
            // the server starts and serves as soon as a model arrives: nothing blocks, but there is nothing to chat with
            checks.add(Check.warn("model", "no model in " + where + " yet", pull));
        }
        return checks;
    }

    static Check port(ServerConfig.Server server) {
        String address = server.host() + ":" + server.port();
        if (server.port() == 0) {
            return Check.ok("port", "port 0: any free port will be used");
        }
        String reach = server.host().equals("127.0.0.1") || server.host().equals("localhost")
                || server.host().equals("::1") ? " (this machine only; server.host: 0.0.0.0 serves the network)" : "";
        try (ServerSocket socket = new ServerSocket()) {
            socket.setReuseAddress(true);
            socket.bind(new InetSocketAddress(server.host(), server.port()));
        } catch (BindException e) {
            String message = String.valueOf(e.getMessage());
            if (message.contains("ermission")) {
                return Check.fail("port", address + ": " + message + " (ports below 1024 need privileges)",
                        "use a port of 1024 or above (server.port), e.g. 8080");
            }
            if (message.contains("assign") || message.contains("annot")) {
                return Check.fail("port", address + ": " + message, "server.host must be an address of this"
                        + " machine: 127.0.0.1, 0.0.0.0 or one of `ip -br addr`");
            }
            if (looksLikeRkllmServer(server)) {
                return Check.warn("port", address + " is in use by a running rkllm-server (the service?)",
                        "fine if that is the service; to start another one, stop it (`sudo systemctl stop"
                                + " rkllm-server`) or choose another server.port");
            }
            return Check.fail("port", address + " is in use by another program", "find it with `sudo ss -ltnp"
                    + " 'sport = :" + server.port() + "'`, stop it, or choose another server.port (--port)");
        } catch (IOException | IllegalArgumentException | SecurityException e) {
            return Check.fail("port", address + ": " + e.getMessage(), "check server.host and server.port");
        }
        return Check.ok("port", address + " is free" + reach);
    }

    private static boolean looksLikeRkllmServer(ServerConfig.Server server) {
        String host = server.host().equals("0.0.0.0") || server.host().equals("::") ? "127.0.0.1" : server.host();
        try {
            HttpURLConnection c = (HttpURLConnection) URI.create("http://" + (host.contains(":") ? "[" + host + "]"
                    : host) + ":" + server.port() + "/health").toURL().openConnection();
            c.setConnectTimeout(1000);
            c.setReadTimeout(1000);
            int status = c.getResponseCode();
            InputStream body = status >= 400 ? c.getErrorStream() : c.getInputStream();
            String text = body == null ? "" : new String(body.readNBytes(4096), StandardCharsets.UTF_8);
            c.disconnect();
            return text.contains("runtime_abi") || text.contains("not_ready");
        } catch (IOException | RuntimeException e) {
            return false;
        }
    }
}
