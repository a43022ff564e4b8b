package io.rkllm.server.tools.doctor;

import io.rkllm.ffm.Abi;
import io.rkllm.ffm.LibraryIdentity;
import io.rkllm.ffm.LibraryLocator;
import io.rkllm.ffm.RkllmException;
import io.rkllm.ffm.RkllmRuntime;
import io.rkllm.server.app.EngineProviders;
import io.rkllm.server.app.Engines;
import io.rkllm.server.app.ServerJar;
import io.rkllm.server.app.Simulation;
import io.rkllm.server.config.ConfigException;
import io.rkllm.server.config.ConfigLoader;
import io.rkllm.server.backend.rkllm.RkllmProvider;
import io.rkllm.server.config.ServerConfig;
import io.rkllm.server.engine.contract.EngineProvider;
import io.rkllm.server.engine.contract.EngineSetup;
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
 * {@code rkllm-server doctor}: checks what serving needs (Java, configuration, the runtime library and
 * its ABI, the RKNPU driver, access to the NPU device, models, the port, and for an installed service
 * its class-data-sharing archive) and says, one line each, what is wrong and how to fix it. Exit code 1
 * when something blocks serving.
 *
 * <p>It reuses the server's own pieces ({@link ConfigLoader}, {@link LibraryLocator}, {@link RkllmRuntime}, the
 * engines' providers and their discovery) so that it judges exactly what {@code serve} would do; each engine adds its
 * own lines.
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

    /** What to check: the configuration file (if any), whether it was named with --config, flags and options. */
    public record Request(Optional<Path> configFile, boolean configFileGiven, Map<String, String> flags,
                          Map<String, String> options) {
        public Request {
            Objects.requireNonNull(configFile, "configFile");
            flags = Map.copyOf(flags);
            options = Map.copyOf(options);
        }
    }

    public Doctor(SystemRoots roots, Map<String, String> environment, Path home, Supplier<Simulation> simulation,
                  PrintStream out) {
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
        ConfigLoader loader = new ConfigLoader(home);
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
        boolean simulated = sim.isPresent();

        boolean simulatedModels = sim.isPresent() && loaded.simulatedModels();
        Path modelsDir = simulatedModels ? sim.get().models() : config.models().dir();
        List<EngineProvider> providers = EngineProviders.all();
        EngineSetup setup = new EngineSetup(config, environment, sim.map(Simulation::directory),
                SlotCount.systemMemory(roots.resolve("/proc/meminfo")));
        DiscoveryResult discovery = EngineProviders.discovery(providers, setup).discover(modelsDir);
        Library library = library(config.runtime(), sim);
        Engines engines = Engines.openNow(providers, setup, discovery.models());
        // a machine whose models all run on other engines (or that has none yet, and has another engine) serves them
        // without librkllmrt.so: not blocking
        boolean othersServeAll = discovery.models().stream().allMatch(m -> !m.facts().engine()
                .equals(RkllmProvider.NAME) && engines.available(m.facts().engine()))
                && providers.stream().anyMatch(p -> !p.name().equals(RkllmProvider.NAME) && engines.available(p.name()));
        checks.add(othersServeAll && library.check().status() == Check.Status.FAIL
                ? library.check().notBlocking(discovery.models().isEmpty()
                        ? "no model needs it yet: GGUF models run through llama.cpp without it, .rkllm models need it"
                        : "the models are GGUF models, which llama.cpp serves without it")
                : library.check());
        checks.add(engines(engines));
        for (EngineProvider provider : providers) {
            provider.doctor(setup, Engines.modelsOf(provider, discovery.models())).stream().map(Check::of)
                    .forEach(checks::add);
        }
        checks.add(CpuCheck.check(roots.resolve("/proc/cpuinfo"), library.file(), library.version()));

        String serviceUser = request.options().getOrDefault("user", SERVICE_USER);
        NpuChecks npu = new NpuChecks(roots, new Accounts(roots.etc()));
        List<Check> hardware = new ArrayList<>();
        hardware.add(npu.driver());
        hardware.addAll(npu.devices(serviceUser, System.getProperty("user.name")));
        boolean cpuOnly = othersServeAll;
        for (Check c : hardware) {
            checks.add(simulated ? c.notBlocking("not needed with --simulate")
                    : cpuOnly ? c.notBlocking("the models are GGUF models: llama.cpp runs them without the NPU,"
                            + " unless it is a build with the RKNPU backend") : c);
        }
        checks.addAll(npu.clocks());

        checks.addAll(models(discovery, modelsDir, simulatedModels));
        thinkingOn130(library.version(), discovery.models(), config.runtime().thinkingFlag())
                .map(c -> simulated ? c.notBlocking("simulated runtime") : c).ifPresent(checks::add);
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

    /** The library's check, and the file and release when one was identified (not the simulated one's file). */
    private record Library(Check check, Optional<Path> file, Optional<String> version) {
        Library(Check check) {
            this(check, Optional.empty(), Optional.empty());
        }
    }

    private Library library(ServerConfig.Runtime runtime, Optional<Simulation> sim) {
        Optional<Abi> forced;
        try {
            forced = Abi.parseChoice(runtime.abi());
        } catch (IllegalArgumentException e) {
            return new Library(Check.fail("library", e.getMessage(), "set runtime.abi to auto, 1.2 or 1.3"));
        }
        Path library;
        if (sim.isPresent()) {
            Abi abi = forced.orElse(Abi.V1_3);
            Optional<Path> bundled = sim.get().library(abi);
            if (bundled.isEmpty()) {
                return new Library(Check.fail("library", "this jar has no simulated runtime built for "
                        + System.getProperty("os.arch"), "build the jar on this kind of machine (./mvnw -B verify),"
                        + " or run without --simulate"));
            }
            library = bundled.get();
        } else {
            Optional<Path> configured = runtime.library().isBlank() ? Optional.empty()
                    : Optional.of(Path.of(runtime.library()));
            LibraryLocator locator = new LibraryLocator(environment);
            Optional<Path> found = locator.locate(configured);
            if (found.isEmpty()) {
                String install = "install librkllmrt.so from airockchip/rknn-llm (rkllm-runtime/Linux/librkllm_api/"
                        + "aarch64/librkllmrt.so, release 1.2.1-1.2.3 or 1.3.0): `sudo install -m 0644 librkllmrt.so"
                        + " /usr/lib/`";
                return new Library(configured.isPresent()
                        ? Check.fail("library", "runtime.library " + configured.get() + " does not exist",
                                install + ", or correct runtime.library (--library PATH)")
                        : Check.fail("library", LibraryLocator.LIBRARY_NAME + " not found in "
                                + locator.searchPath(), install + " (or set --library PATH; --simulate needs none)"));
            }
            library = found.get();
        }
        RkllmRuntime opened;
        try {
            opened = RkllmRuntime.open(library, forced);
        } catch (RkllmException e) {
            return new Library(Check.fail("library", e.getMessage(), forced.isEmpty()
                    ? "force the ABI: --abi 1.2 for runtime 1.2.1-1.2.3, --abi 1.3 for 1.3.0 (or runtime.abi in the"
                            + " config file, RKLLM_RUNTIME_ABI); docs/runtime-abi.md"
                    : "install runtime 1.2.1-1.2.3 or 1.3.0 from airockchip/rknn-llm, matching --abi"));
        } catch (RuntimeException e) {
            return new Library(Check.fail("library", "cannot load " + library + ": " + e.getMessage(),
                    "the file must be the aarch64 librkllmrt.so from airockchip/rknn-llm"));
        }
        LibraryIdentity identity = opened.identity();
        // the simulated runtime's file hash is no official release's: the evidence would call it unknown
        String what = sim.isPresent()
                ? "the simulated runtime " + identity.version().orElse("") + " bundled in the jar, ABI "
                        + opened.abi().label() + (forced.isPresent() ? " (forced)" : "") + ", " + library
                : library + ": runtime " + identity.version().orElse("unknown") + ", ABI " + opened.abi().label()
                        + (forced.isPresent() ? " (forced)" : "") + " - " + identity.evidence();
        Optional<Path> file = sim.isPresent() ? Optional.empty() : Optional.of(library);
        if (forced.isPresent() && identity.abi().isPresent() && identity.abi().get() != forced.get()) {
            return new Library(Check.warn("library", what, "the file looks like ABI " + identity.abi().get().label()
                    + ": remove the forced runtime.abi (--abi) unless you are sure"), file, identity.version());
        }
        return new Library(Check.ok("library", what), file, identity.version());
    }

    /**
     * Which engines can serve models here, each with what it runs or why it cannot (the engine's own lines, and the
     * library check for the RKLLM runtime, say how to fix a missing one). Not blocking by itself: the server starts
     * when at least one engine is available.
     */
    private static Check engines(Engines engines) {
        return Check.info("engines", String.join("; ", engines.engines().stream().map(e -> e.provider().title()
                + (e.opening().available().isPresent() ? ": " + e.provider().name() + " models"
                : ": not available")).toList()));
    }

    /**
     * Runtime 1.3.0 with thinking models: the release is reported to end thinking answers at {@code </think>}
     * (docs/runtime-abi.md). The server works around it for models it has a chat template for; 1.2.3 is the
     * release known to work.
     */
    static Optional<Check> thinkingOn130(Optional<String> version, List<ModelDescriptor> models, String thinkingFlag) {
        List<String> thinking = models.stream().filter(m -> m.capabilities().thinking()).map(ModelDescriptor::id)
                .toList();
        if (version.filter("1.3.0"::equals).isEmpty() || thinking.isEmpty()) {
            return Optional.empty();
        }
        List<String> flagOnly = models.stream().filter(m -> m.capabilities().thinking())
                .filter(m -> PromptFormat.of(m).isEmpty()).map(ModelDescriptor::id).toList();
        String how = thinkingFlag.equals("always") ? "runtime.thinking_flag is always: every thinking answer may"
                + " come back empty" : flagOnly.isEmpty() ? "the server switches thinking through their chat"
                + " templates instead of the runtime's flag, which avoids it as far as is known"
                : "the server has no chat template for " + flagOnly + ", which can only think through the runtime's"
                        + " flag: their thinking answers may come back empty (reported as finish_reason length)";
        return Optional.of(Check.warn("runtime", "runtime 1.3.0 with thinking models " + thinking + ": 1.3.0 is"
                + " reported to end thinking answers at </think>; " + how, "runtime 1.2.3 is the known-good release"
                + " (airockchip/rknn-llm tag release-v1.2.3, ABI 1.2); re-convert models with the toolkit of the"
                + " runtime you use (docs/runtime-abi.md)"));
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
