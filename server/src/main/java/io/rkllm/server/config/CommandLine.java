package io.rkllm.server.config;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;

/**
 * The parsed command line: a command ({@code serve} unless another is named), configuration
 * flags ({@code --port 8081}, {@code --queue.max_waiting=4}), and the command's own options.
 */
public record CommandLine(String command, Optional<Path> configFile, Map<String, String> configFlags,
                          Map<String, String> commandOptions, List<String> arguments, boolean help,
                          boolean version) {

    /** Short flags for the most used keys. */
    public static final Map<String, String> SHORTCUTS = Map.of(
            "host", "server.host",
            "port", "server.port",
            "models", "models.dir",
            "library", "runtime.library",
            "abi", "runtime.abi",
            "simulate", "runtime.simulate",
            "llama-library", "engines.llama.library",
            "api-key", "security.api_keys");
    private static final Set<String> BOOLEAN_FLAGS = Set.of("simulate", "help", "version", "runtime.simulate",
            "dry-run", "insecure");
    /** The server's own commands; the tools jar's come to {@link #parse(Set, Set, String...)} from the launcher. */
    public static final Set<String> COMMANDS = Set.of("serve", "doctor", "models", "rag-clean", "launch", "pull");
    /**
     * The options of the server's own commands (doctor, launch, rag-clean), all taking a value: only so that a
     * misspelt flag at the end of the line is called unknown rather than missing its value. Each command
     * still rejects the options it does not take.
     */
    private static final Set<String> COMMAND_OPTIONS = Set.of("user", "url", "model", "key", "in", "out");

    /** A command line of the server's own commands. */
    public static CommandLine parse(String... args) {
        return parse(Set.of(), Set.of(), args);
    }

    /**
     * A command line that may also name one of {@code toolCommands}, whose options that take a value are
     * {@code toolOptions} (the launcher's tool commands, {@code io.rkllm.server.tools.ToolCommands}).
     */
    public static CommandLine parse(Set<String> toolCommands, Set<String> toolOptions, String... args) {
        Set<String> commands = new TreeSet<>(COMMANDS);
        commands.addAll(toolCommands);
        String command = null;
        Path config = null;
        Map<String, String> flags = new LinkedHashMap<>();
        Map<String, String> options = new LinkedHashMap<>();
        List<String> arguments = new ArrayList<>();
        boolean help = false;
        boolean version = false;
        for (int i = 0; i < args.length; i++) {
            String arg = args[i];
            if (arg.equals("-h")) {
                help = true;
                continue;
            }
            if (!arg.startsWith("--")) {
                if (command == null && arguments.isEmpty() && arg.equals("help")) {
                    help = true;
                } else if (command == null && arguments.isEmpty() && commands.contains(arg)) {
                    command = arg;
                } else if (command == null && arguments.isEmpty() && !arg.startsWith("-")) {
                    throw new ConfigException("unknown command '" + arg + "' (commands: " + String.join(", ",
                            commands) + ", help; see --help)");
                } else {
                    arguments.add(arg);
                }
                continue;
            }
            String name = arg.substring(2);
            String value = null;
            int eq = name.indexOf('=');
            if (eq >= 0) {
                value = name.substring(eq + 1);
                name = name.substring(0, eq);
            }
            if (name.isEmpty()) {
                throw new ConfigException("'--' is not an option");
            }
            if (value == null) {
                if (BOOLEAN_FLAGS.contains(name)) {
                    value = "true";
                } else if (i + 1 < args.length && !args[i + 1].startsWith("--")) {
                    value = args[++i];
                } else if (SHORTCUTS.containsKey(name) || name.equals("config") || name.contains(".")
                        || COMMAND_OPTIONS.contains(name) || toolOptions.contains(name)) {
                    throw new ConfigException("--" + name + " needs a value");
                } else {
                    throw new ConfigException("--" + name + ": unknown option (see --help)");
                }
            }
            switch (name) {
                case "help" -> help = Boolean.parseBoolean(value);
                case "version" -> version = Boolean.parseBoolean(value);
                case "config" -> config = Path.of(value);
                default -> {
                    if (SHORTCUTS.containsKey(name)) {
                        String key = SHORTCUTS.get(name);
                        flags.merge(key, value, (a, b) -> a + "," + b);
                    } else if (name.contains(".")) {
                        flags.put(name, value);
                    } else {
                        options.put(name, value);
                    }
                }
            }
        }
        return new CommandLine(command == null ? "serve" : command, Optional.ofNullable(config), flags, options,
                arguments, help, version);
    }
}
