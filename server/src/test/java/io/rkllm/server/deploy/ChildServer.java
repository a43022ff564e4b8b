package io.rkllm.server.deploy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The server as a child process (tests that need a real process: signals, the process's own stdout),
 * started from a class path with {@code --simulate} in a working directory, its console in a file. Public for the
 * tools module's tests.
 */
public record ChildServer(Process process, Path console) {
    /**
     * A child server lives for a test's few requests: the client compiler alone (as the test JVMs run) saves the
     * CPU that C2's compilations would take from the other test forks and never pay back.
     */
    static final String CLIENT_COMPILER = "-XX:TieredStopAtLevel=1";

    /** Starts {@code io.rkllm.server.Main --simulate args} from {@code classPath}, with {@code HOME} and the working directory in {@code dir}. */
    public static ChildServer start(Path dir, String classPath, Map<String, String> environment, String... args)
            throws IOException {
        return start(dir, classPath, environment, List.of(), args);
    }

    /** The same with more JVM options. */
    public static ChildServer start(Path dir, String classPath, Map<String, String> environment, List<String> jvmOptions,
                             String... args) throws IOException {
        List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "--enable-native-access=ALL-UNNAMED", "-XX:+UseSerialGC", "-Xshare:auto", CLIENT_COMPILER));
        command.addAll(jvmOptions);
        command.addAll(List.of("-cp", classPath, "io.rkllm.server.Main", "--simulate", "--port", "0"));
        command.addAll(List.of(args));
        return launch(dir, command, environment);
    }

    /** Starts {@code io.rkllm.server.Main --port 0 args}: the real runtimes, whichever this machine has. */
    public static ChildServer startUnsimulated(Path dir, String classPath, Map<String, String> environment, String... args)
            throws IOException {
        List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "--enable-native-access=ALL-UNNAMED", "-XX:+UseSerialGC", CLIENT_COMPILER, "-cp", classPath,
                "io.rkllm.server.Main", "--port", "0"));
        command.addAll(List.of(args));
        return launch(dir, command, environment);
    }

    private static ChildServer launch(Path dir, List<String> command, Map<String, String> environment)
            throws IOException {
        Path console = dir.resolve("console.log");
        ProcessBuilder pb = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(console.toFile());
        pb.environment().putAll(environment);
        pb.environment().put("HOME", dir.toString());
        pb.directory(dir.toFile());
        return new ChildServer(pb.start(), console);
    }

    /** The port from the server's "listening on" line, once it is written. */
    public int awaitPort() throws IOException, InterruptedException {
        return Integer.parseInt(await(Pattern.compile("(?m)^listening on [^ ]+:(\\d+)$")).group(1));
    }

    /** Polls the console until {@code pattern} matches (60 s at most); the server failing to get there is an AssertionError. */
    public Matcher await(Pattern pattern) throws IOException, InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (System.nanoTime() < deadline) {
            Matcher m = pattern.matcher(Files.exists(console) ? Files.readString(console) : "");
            if (m.find()) {
                return m;
            }
            Thread.sleep(20);
        }
        throw new AssertionError("no " + pattern + " in the console:\n" + Files.readString(console));
    }

    public void destroyIfAlive() {
        if (process.isAlive()) {
            process.destroyForcibly();
        }
    }
}
