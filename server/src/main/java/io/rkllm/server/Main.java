package io.rkllm.server;

import ch.qos.logback.classic.Level;
import io.rkllm.rag.RagCleanCommand;
import io.rkllm.server.app.BoardFacts;
import io.rkllm.server.app.CatalogRefresh;
import io.rkllm.server.app.EngineProviders;
import io.rkllm.server.app.Engines;
import io.rkllm.server.app.ServerApp;
import io.rkllm.server.app.ServedModels;
import io.rkllm.server.app.ServerJar;
import io.rkllm.server.app.Simulation;
import io.rkllm.server.app.StartupException;
import io.rkllm.server.config.CommandLine;
import io.rkllm.server.config.ConfigException;
import io.rkllm.server.config.ConfigLoader;
import io.rkllm.server.config.ServerConfig;
import io.rkllm.server.download.DiskSpace;
import io.rkllm.server.download.Hub;
import io.rkllm.server.download.ModelsDirectory;
import io.rkllm.server.download.Puller;
import io.rkllm.server.engine.contract.EngineProvider;
import io.rkllm.server.engine.contract.EngineSetup;
import io.rkllm.server.models.DiscoveryResult;
import io.rkllm.server.pipeline.SlotCount;
import io.rkllm.server.tools.doctor.Doctor;
import io.rkllm.server.engine.contract.SystemRoots;
import io.rkllm.server.tools.launch.LaunchCommand;
import io.rkllm.server.tools.pull.PullCommand;
import io.rkllm.server.tools.ToolCommand;
import io.rkllm.server.tools.ToolCommands;
import io.rkllm.server.tools.ToolContext;
import java.io.Console;
import java.io.IOException;
import java.io.PrintStream;
import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The command line: {@code serve} (default), {@code models}, {@code pull}, {@code doctor}, {@code launch},
 * {@code rag-clean}, and the tools jar's commands ({@link ToolCommand}: the benches, fuzz, soak, cds-archive);
 * exit code 2 for bad configuration.
 */
public final class Main {
    static final int OK = 0;
    static final int FAILED = 1;
    static final int BAD_CONFIG = 2;
    /** How often, at most, a request makes the server look whether the models directory changed. */
    private static final Duration CATALOG_LOOK = Duration.ofSeconds(2);

    private final Map<String, String> environment;
    private final PrintStream out;
    private final PrintStream err;

    Main(Map<String, String> environment, PrintStream out, PrintStream err) {
        this.environment = environment;
        this.out = out;
        this.err = err;
    }

    public static void main(String[] args) {
        int code = new Main(System.getenv(), System.out, System.err).run(args);
        // also on success: Javalin leaves a non-daemon thread sleeping for a few seconds after a stop
        System.exit(code);
    }

    int run(String[] args) {
        // launch passes everything after "--" to the agent it starts, untouched
        List<String> passed = List.of();
        int separator = List.of(args).indexOf("--");
        if (separator > 0 && List.of(args).subList(0, separator).contains("launch")) {
            passed = List.of(args).subList(separator + 1, args.length);
            args = Arrays.copyOf(args, separator);
        }
        ParsedCommand parsed;
        try {
            parsed = ParsedCommand.of(args, ToolCommands::onClassPath);
        } catch (ConfigException e) {
            err.println("rkllm-server: " + e.getMessage());
            return BAD_CONFIG;
        } catch (StartupException e) {
            err.println("rkllm-server: " + e.getMessage());
            return FAILED;
        }
        CommandLine line = parsed.line();
        ConfigLoader loader = new ConfigLoader(home(), EngineProviders.settings(EngineProviders.all()));
        if (line.help()) {
            out.print(HelpText.render(loader, parsed.tools()));
            return OK;
        }
        if (line.version()) {
            out.println("rkllm-server " + version());
            return OK;
        }
        try {
            return switch (line.command()) {
                case "serve" -> serve(load(line, loader));
                case "rag-clean" -> ragClean(line);
                case "models" -> models(load(line, loader));
                case "doctor" -> doctor(line);
                case "launch" -> launch(line, loader, passed);
                case "pull" -> pull(line, loader);
                default -> tool(line, loader, parsed.tools());
            };
        } catch (ConfigException e) {
            err.println("rkllm-server: configuration error: " + e.getMessage());
            return BAD_CONFIG;
        } catch (StartupException e) {
            err.println("rkllm-server: " + e.getMessage());
            return FAILED;
        }
    }

    /**
     * The configuration {@code args} and the environment give, exactly as {@code serve} would use it.
     *
     * @throws ConfigException for a bad command line or configuration
     */
    ConfigLoader.Loaded configuration(String... args) {
        return load(CommandLine.parse(args), new ConfigLoader(home(), EngineProviders.settings(EngineProviders.all())));
    }

    private ConfigLoader.Loaded load(CommandLine line, ConfigLoader loader) {
        Optional<Path> file = line.configFile();
        if (file.isPresent() && !Files.isRegularFile(file.get())) {
            throw new ConfigException("--config " + file.get() + ": no such file");
        }
        if (file.isEmpty()) {
            file = defaultConfigFiles().stream().filter(Files::isRegularFile).findFirst();
        }
        Map<String, String> flags = new LinkedHashMap<>(line.configFlags());
        if (!line.commandOptions().isEmpty()) {
            String unknown = line.commandOptions().keySet().iterator().next();
            throw new ConfigException("--" + unknown + ": unknown option (see --help)");
        }
        ConfigLoader.Loaded loaded = loader.load(file, environment, flags);
        setLogLevel(loaded.config().logging().level());
        return loaded;
    }

    private List<Path> defaultConfigFiles() {
        List<Path> candidates = new ArrayList<>();
        candidates.add(Path.of("config", "rkllm-server.yaml"));
        ServerJar.file().ifPresent(jar -> candidates.add(jar.resolveSibling("config").resolve("rkllm-server.yaml")));
        candidates.add(Path.of("/etc/rkllm-server/rkllm-server.yaml"));
        return candidates;
    }

    private int serve(ConfigLoader.Loaded loaded) {
        ServerConfig config = loaded.config();
        Optional<Simulation> simulation = config.runtime().simulate()
                ? Optional.of(Simulation.inTempDirectory()) : Optional.empty();
        try {
            return serve(loaded, simulation);
        } catch (RuntimeException e) {
            simulation.ifPresent(Simulation::close);
            throw e;
        }
    }

    /** Serves until SIGTERM; the shutdown hook is then the one owner of the simulation's directory. */
    private int serve(ConfigLoader.Loaded loaded, Optional<Simulation> simulation) {
        ServerConfig config = loaded.config();
        Path modelsDir = simulation.isPresent() && loaded.simulatedModels() ? simulation.get().models()
                : config.models().dir();
        loaded.file().ifPresent(f -> out.println("config: " + f.toAbsolutePath()));
        // with --simulate: the simulated models, and beside them the real models of models.dir whose engines are not
        // simulated (llama.cpp's GGUF models)
        boolean withReal = simulation.isPresent() && loaded.simulatedModels();
        List<EngineProvider> providers = EngineProviders.all();
        EngineSetup setup = new EngineSetup(config, environment, simulation.map(Simulation::directory),
                SlotCount.systemMemory(Path.of("/proc/meminfo")));
        List<EngineProvider> real = providers.stream().filter(p -> !p.simulated(setup)).toList();
        Supplier<DiscoveryResult> discover = () -> {
            DiscoveryResult found = EngineProviders.discovery(providers, setup).discover(modelsDir);
            if (withReal && Files.isDirectory(config.models().dir())) {
                found = found.withModelsOf(EngineProviders.discovery(real, setup).discover(config.models().dir()));
            }
            return found;
        };
        CatalogRefresh catalogs = new CatalogRefresh(discover, withReal ? List.of(modelsDir, config.models().dir())
                : List.of(modelsDir), CATALOG_LOOK);
        DiscoveryResult discovery = report(catalogs.initial(), modelsDir);
        boolean noDirectory = !Files.exists(modelsDir);
        // a missing engine library is the reason its models cannot load; a machine that can serve none stops here
        Engines engines = Engines.open(providers, setup, discovery.models()).requireFor(discovery.models());
        engines.banner().forEach(out::println);
        printModelsDirNote(loaded);
        new ModelsListing(out).printBrief(modelsDir, discovery.models());
        List<String> endings = EngineProviders.discovery(providers, setup).endings();
        if (discovery.models().isEmpty()) {
            out.println("  none yet" + (noDirectory ? " (the directory does not exist yet: the first pull creates it)"
                    : "") + ": download one with `rkllm-server pull OWNER/REPO[:QUANT]` (e.g. rkllm-server pull"
                    + " bartowski/Qwen2.5-1.5B-Instruct-GGUF) or the chat page's download, or put "
                    + String.join(" or ", endings) + " files there, each in its own folder; docs/models.md recommends"
                    + " models for each board");
        }
        ModelsDirectory directory = new ModelsDirectory(config.models().dir(), DiskSpace.SYSTEM, endings);
        // as Ollama prunes unused blobs when it starts: abandoned partial downloads do not stay hidden for good
        directory.pruneStale(ModelsDirectory.STALE_PARTIAL, Instant.now()).forEach(p -> out.println("removed " + p
                + ": a partial download no pull wrote for " + ModelsDirectory.STALE_PARTIAL.toDays() + " days"));
        Puller downloads = new Puller(() -> Hub.fromEnvironment(environment, version()), directory,
                BoardFacts.of(engines));
        ServerApp app = ServerApp.start(config, engines, new ServedModels(catalogs, Optional.of(downloads)));
        String url = "http://" + displayHost(config.server().host()) + ":" + app.port() + "/v1";
        out.println("listening on " + config.server().host() + ":" + app.port());
        if (config.server().webUi()) {
            out.println("chat page: http://" + displayHost(config.server().host()) + ":" + app.port() + "/");
        }
        boolean keys = !config.security().apiKeys().isEmpty() || !config.security().apiKeyFile().isBlank();
        out.println("Open WebUI: Settings > Connections > OpenAI API > URL " + url
                + (keys ? " with one of the API keys" : " (any key)"));
        out.flush();
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(Thread.ofPlatform().unstarted(() -> {
            out.println("stopping: no new requests, running generations get 20 s, then every model is destroyed");
            out.flush();
            app.stop(Duration.ofSeconds(20), Duration.ofMillis(300));
            // before the halt below, which would cut short the simulation's own shutdown hook
            simulation.ifPresent(Simulation::close);
            stopped.countDown();
            out.println("stopped");
            out.flush();
            err.flush();
            // SIGTERM (systemctl stop) or Ctrl-C would end the JVM with 143 / 130; this shutdown was orderly.
            Runtime.getRuntime().halt(OK);
        }));
        try {
            stopped.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        return OK;
    }

    /** {@code launch CLIENT [--model M] [--url U] [--key K] [--dry-run] [-- ARGS]}: an agent against the server. */
    private int launch(CommandLine line, ConfigLoader loader, List<String> passed) {
        if (line.arguments().size() != 1) {
            err.println("rkllm-server launch: name one client: claude, codex, opencode or continue"
                    + " (rkllm-server launch claude [--model ID] [-- ARGS])");
            return BAD_CONFIG;
        }
        Map<String, String> options = new LinkedHashMap<>(line.commandOptions());
        Optional<String> model = Optional.ofNullable(options.remove("model"));
        Optional<String> url = Optional.ofNullable(options.remove("url"));
        Optional<String> key = Optional.ofNullable(options.remove("key"));
        boolean dryRun = Boolean.parseBoolean(options.remove("dry-run"));
        CommandLine rest = new CommandLine(line.command(), line.configFile(), line.configFlags(), options,
                List.of(), false, false);
        ServerConfig config = load(rest, loader).config();
        return new LaunchCommand(environment, out, err).run(new LaunchCommand.Request(line.arguments().getFirst(),
                model, url, key, dryRun, passed), config);
    }

    /** {@code pull MODEL [--insecure] [--models DIR]}: see {@link PullCommand}. */
    private int pull(CommandLine line, ConfigLoader loader) {
        if (line.arguments().size() != 1) {
            err.println("rkllm-server pull: name one model: an Ollama name (qwen3:4b, NAMESPACE/MODEL:TAG,"
                    + " HOST/NAMESPACE/MODEL:TAG) or a Hugging Face repository (hf.co/OWNER/REPO[:QUANT],"
                    + " OWNER/REPO[:QUANT], OWNER/REPO/FILE); e.g. rkllm-server pull qwen3:4b");
            return BAD_CONFIG;
        }
        Map<String, String> options = new LinkedHashMap<>(line.commandOptions());
        boolean insecure = Boolean.parseBoolean(options.remove("insecure"));
        ServerConfig config = load(new CommandLine(line.command(), line.configFile(), line.configFlags(), options,
                line.arguments(), false, false), loader).config();
        // the command prints its own progress and result; the Puller's info lines would say the same twice
        setLogLevel("warn");
        Console console = System.console();
        boolean terminal = out == System.out && console != null && console.isTerminal();
        return new PullCommand(environment, out, err, terminal, version()).run(line.arguments().getFirst(), insecure,
                config.models().dir(), BoardFacts.of(config.runtime(), environment), EngineProviders.discovery(
                        new EngineSetup(config, environment, Optional.empty(),
                                SlotCount.systemMemory(Path.of("/proc/meminfo")))));
    }

    private int doctor(CommandLine line) {
        setLogLevel("warn");
        Optional<Path> file = line.configFile()
                .or(() -> defaultConfigFiles().stream().filter(Files::isRegularFile).findFirst());
        return new Doctor(SystemRoots.host(), environment, home(), Simulation::inTempDirectory, out)
                .run(new Doctor.Request(file, line.configFile().isPresent(), line.configFlags(), line.commandOptions()));
    }

    private DiscoveryResult discover(Path modelsDir, ServerConfig config) {
        return report(EngineProviders.discovery(new EngineSetup(config, environment, Optional.empty(),
                SlotCount.systemMemory(Path.of("/proc/meminfo")))).discover(modelsDir), modelsDir);
    }

    /** Prints what discovery warns of and what it could not read; returns it. */
    private DiscoveryResult report(DiscoveryResult discovery, Path modelsDir) {
        discovery.warnings().forEach(w -> err.println("warning: " + w));
        boolean noDirectory = !Files.exists(modelsDir);
        // a models directory that is not there yet is a fresh install's: the first pull creates it
        discovery.errors().stream().filter(e -> !noDirectory || !e.path().equals(modelsDir.toAbsolutePath()
                .normalize())).forEach(e -> err.println("error: " + e));
        return discovery;
    }

    private int models(ConfigLoader.Loaded loaded) {
        ServerConfig config = loaded.config();
        printModelsDirNote(loaded);
        if (loaded.simulatedModels()) {
            try (Simulation simulation = Simulation.inTempDirectory()) {
                return models(config, simulation.models());
            }
        }
        return models(config, config.models().dir());
    }

    private int models(ServerConfig config, Path modelsDir) {
        DiscoveryResult discovery = discover(modelsDir, config);
        new ModelsListing(out).print(config, modelsDir, discovery.models(),
                SlotCount.systemMemory(Path.of("/proc/meminfo")));
        return discovery.hasErrors() ? FAILED : OK;
    }

    /** With --simulate, a models.dir from the file or the environment gives way to the simulated models: say so. */
    private void printModelsDirNote(ConfigLoader.Loaded loaded) {
        if (loaded.simulatedModels() && loaded.explicitKeys().contains("models.dir")) {
            out.println("models: the simulated ones (--simulate); models.dir " + loaded.config().models().dir()
                    + " is not used (add --models DIR to simulate the runtime over it)");
        }
    }

    /** A command of the tools jar; what to install when that jar is not there. */
    private int tool(CommandLine line, ConfigLoader loader, ToolCommands tools) {
        Optional<ToolCommand> command = tools.find(line.command());
        if (command.isEmpty()) {
            err.println("rkllm-server " + line.command() + ": " + ToolCommands.missing(line.command()));
            return BAD_CONFIG;
        }
        try {
            return command.get().run(line, new ToolContext(environment, out, err, loader, Main::setLogLevel));
        } catch (IOException e) {
            err.println("rkllm-server " + line.command() + ": " + e.getMessage());
            return FAILED;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return FAILED;
        }
    }

    private int ragClean(CommandLine line) {
        String in = line.commandOptions().get("in");
        String outDir = line.commandOptions().get("out");
        if (in == null || outDir == null) {
            throw new ConfigException("rag-clean needs --in DIR and --out DIR");
        }
        try {
            int pages = new RagCleanCommand().run(Path.of(in), Path.of(outDir));
            out.println("cleaned " + pages + " pages into " + outDir);
            return OK;
        } catch (IOException e) {
            err.println("rkllm-server rag-clean: " + e.getMessage());
            return FAILED;
        }
    }

    private Path home() {
        return Path.of(environment.getOrDefault("HOME", System.getProperty("user.home")));
    }

    private static String displayHost(String host) {
        if (!host.equals("0.0.0.0") && !host.equals("::")) {
            return host;
        }
        try {
            return InetAddress.getLocalHost().getHostName();
        } catch (IOException e) {
            return "localhost";
        }
    }

    static String version() {
        String v = Main.class.getPackage().getImplementationVersion();
        return v == null ? "dev" : v;
    }

    private static void setLogLevel(String level) {
        if (LoggerFactory.getLogger(Logger.ROOT_LOGGER_NAME) instanceof ch.qos.logback.classic.Logger root) {
            root.setLevel(Level.toLevel(level, Level.INFO));
        }
    }
}
