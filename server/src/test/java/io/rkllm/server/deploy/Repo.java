package io.rkllm.server.deploy;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * The repository checkout (a module runs its tests in its own folder) and running its scripts; public for the
 * tools module's tests, which use the server's test fixtures.
 */
public final class Repo {
    private Repo() {
    }

    public static Path root() {
        Path here = Path.of("").toAbsolutePath();
        for (Path p = here; p != null; p = p.getParent()) {
            if (Files.isDirectory(p.resolve("packaging")) && Files.isRegularFile(p.resolve("mvnw"))) {
                return p;
            }
        }
        throw new IllegalStateException("no repository root above " + here);
    }

    public static Path file(String relative) {
        return root().resolve(relative);
    }

    /** Output (stdout and stderr together) and exit code of a command. */
    public record Result(int code, String output) {
    }

    public static Result run(List<String> command, Map<String, String> environment) {
        try {
            ProcessBuilder pb = new ProcessBuilder(command).redirectErrorStream(true).directory(root().toFile());
            pb.environment().putAll(environment);
            Process p = pb.start();
            p.getOutputStream().close();
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (!p.waitFor(120, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                throw new IllegalStateException("timed out: " + command);
            }
            return new Result(p.exitValue(), out);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    public static Result run(String... command) {
        return run(List.of(command), Map.of());
    }

    public static boolean onPath(String program) {
        for (String dir : System.getenv().getOrDefault("PATH", "").split(":")) {
            if (!dir.isEmpty() && Files.isExecutable(Path.of(dir, program))) {
                return true;
            }
        }
        return false;
    }

    public static List<String> lines(Path file) {
        try {
            return new ArrayList<>(Files.readAllLines(file));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
