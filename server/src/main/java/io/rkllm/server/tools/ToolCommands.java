package io.rkllm.server.tools;

import io.rkllm.server.app.ServerJar;
import io.rkllm.server.app.StartupException;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.ServiceConfigurationError;
import java.util.ServiceLoader;
import java.util.Set;
import java.util.TreeSet;

/**
 * The {@link ToolCommand}s on the class path, by name, and what to say for one the tools jar would bring when that
 * jar is not there. Looked up only when a command is not the server's own, so that serving loads none of this.
 */
public final class ToolCommands {
    /** The tools jar's file name, as the package installs it beside the server jar and the manifest names it. */
    public static final String JAR = "rkllm-server-tools.jar";
    /**
     * The commands the tools jar brings: named here only to tell a user who asks for one without the jar what to
     * install, instead of calling a documented command unknown.
     */
    public static final Set<String> SHIPPED = Set.of("bench", "fuzz", "soak", "cds-archive");

    private final Map<String, ToolCommand> byName;

    private ToolCommands(Map<String, ToolCommand> byName) {
        this.byName = byName;
    }

    /**
     * Those {@link ServiceLoader} finds with this class's loader (the server jar's, the tools jar beside it).
     *
     * @throws StartupException when the tools jar does not fit this server jar
     */
    public static ToolCommands onClassPath() {
        try {
            return of(ServiceLoader.load(ToolCommand.class, ToolCommands.class.getClassLoader()).stream()
                    .map(ServiceLoader.Provider::get).toList());
        } catch (ServiceConfigurationError | LinkageError e) {
            throw new StartupException("the tools jar (" + JAR + ") does not fit this server jar (" + e.getMessage()
                    + "): install both from the same build or package");
        }
    }

    /**
     * @throws StartupException when two commands share a name (two tools jars on the class path)
     */
    public static ToolCommands of(List<ToolCommand> commands) {
        Map<String, ToolCommand> byName = new LinkedHashMap<>();
        for (ToolCommand c : commands) {
            ToolCommand before = byName.putIfAbsent(c.name(), c);
            if (before != null) {
                throw new StartupException("two tool commands named " + c.name() + ": "
                        + before.getClass().getName() + " and " + c.getClass().getName()
                        + " (is more than one rkllm-server-tools.jar on the class path?)");
            }
        }
        return new ToolCommands(byName);
    }

    public Optional<ToolCommand> find(String name) {
        return Optional.ofNullable(byName.get(name));
    }

    public boolean present() {
        return !byName.isEmpty();
    }

    /** The names the command line accepts beyond the server's own: those found, and those the tools jar would add. */
    public Set<String> names() {
        Set<String> names = new TreeSet<>(SHIPPED);
        names.addAll(byName.keySet());
        return names;
    }

    /** Every option that takes a value of every command found. */
    public Set<String> valueOptions() {
        Set<String> options = new TreeSet<>();
        byName.values().forEach(c -> options.addAll(c.valueOptions()));
        return options;
    }

    /** Their lines in {@code --help}; a line saying where they are when none was found. */
    public String usage() {
        if (byName.isEmpty()) {
            return "  rkllm-server bench|fuzz|soak|cds-archive ...\n"
                    + "                                      the benches, the fuzzer, the soak and the archive"
                    + " training:\n"
                    + "                                      in " + JAR + ", which is not installed here\n";
        }
        StringBuilder s = new StringBuilder();
        byName.values().forEach(c -> s.append(c.usage()));
        return s.toString();
    }

    /** What to do about {@code name}, one of {@link #SHIPPED}, when its jar is not on the class path. */
    public static String missing(String name) {
        String where = ServerJar.file().map(jar -> "beside " + jar).orElse("on the class path");
        return name + " is in the tools jar, " + JAR + ", and there is none " + where + ": install the rkllm-server"
                + " package again (it installs both jars in /usr/share/rkllm-server), or in a checkout build it with"
                + " scripts/build package -DskipTests (./mvnw -B package -DskipTests), which writes it beside"
                + " server/target/rkllm-server.jar";
    }
}
