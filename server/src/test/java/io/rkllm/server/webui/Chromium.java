package io.rkllm.server.webui;

import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * A headless Chromium from the distribution's packages (never a downloaded browser), started with a fresh profile
 * and every background service off, driven over its DevTools protocol.
 */
final class Chromium implements AutoCloseable {
    /** The flags that keep a headless Chromium quiet and working in a container (no sandbox, no GPU, no phoning). */
    static final List<String> FLAGS = List.of("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
            "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync",
            "--disable-default-apps", "--disable-extensions", "--mute-audio", "--hide-scrollbars",
            "--remote-debugging-port=0");

    private final Process process;
    private final DevTools devTools;
    private final String version;

    private Chromium(Process process, DevTools devTools) throws Exception {
        this.process = process;
        this.devTools = devTools;
        this.version = devTools.send(null, "Browser.getVersion", null).path("product").asText("an unknown Chromium");
    }

    /** The browser's product and version as it reports them, e.g. "Chrome/156.0.8078.108". */
    String version() {
        return version;
    }

    /**
     * The browser to use: $RKLLM_CHROMIUM, else {@code chromium} on the PATH (Debian's package; Ubuntu's
     * chromium-browser is a wrapper around a snap, which is not looked for).
     */
    static Optional<Path> executable() {
        String given = System.getenv("RKLLM_CHROMIUM");
        if (given != null && !given.isBlank()) {
            return Optional.of(Path.of(given)).filter(Files::isExecutable);
        }
        String path = System.getenv().getOrDefault("PATH", "/usr/bin:/bin");
        for (String dir : path.split(":")) {
            Path candidate = Path.of(dir.isEmpty() ? "." : dir, "chromium");
            if (Files.isExecutable(candidate)) {
                return Optional.of(candidate);
            }
        }
        return Optional.empty();
    }

    static Chromium start(Path executable, Path profile) throws Exception {
        List<String> command = new ArrayList<>();
        command.add(executable.toString());
        command.addAll(FLAGS);
        command.add("--user-data-dir=" + profile);
        command.add("about:blank");
        Process process = new ProcessBuilder(command).redirectErrorStream(true)
                .redirectOutput(profile.resolveSibling(profile.getFileName() + ".log").toFile()).start();
        try {
            // Chromium writes its port and browser endpoint here once it listens
            Path portFile = profile.resolve("DevToolsActivePort");
            long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
            List<String> lines = List.of();
            while (lines.size() < 2) {
                if (!process.isAlive()) {
                    throw new IOException("chromium exited with " + process.exitValue() + ": "
                            + Files.readString(profile.resolveSibling(profile.getFileName() + ".log")));
                }
                if (System.nanoTime() > deadline) {
                    throw new IOException("chromium did not open its DevTools port within 60 s");
                }
                if (Files.exists(portFile)) {
                    lines = Files.readAllLines(portFile);
                }
                if (lines.size() < 2) {
                    Thread.sleep(20);
                }
            }
            URI uri = URI.create("ws://127.0.0.1:" + lines.get(0).strip() + lines.get(1).strip());
            return new Chromium(process, DevTools.connect(uri));
        } catch (Exception e) {
            stop(process);
            throw e;
        }
    }

    /** A new tab, attached, with the domains the tests watch enabled. */
    BrowserTab newTab() throws Exception {
        return BrowserTab.open(devTools);
    }

    @Override
    public void close() {
        try {
            // a browser asked to close removes its profile's lock and socket; one that is killed leaves them
            devTools.send(null, "Browser.close", null);
            process.waitFor(10, TimeUnit.SECONDS);
        } catch (Exception e) {
            // stopped below
        } finally {
            devTools.close();
            stop(process);
        }
    }

    private static void stop(Process process) {
        // the renderer, GPU and utility processes are children of the browser process
        List<ProcessHandle> family = new ArrayList<>(process.descendants().toList());
        process.destroy();
        family.forEach(ProcessHandle::destroy);
        try {
            if (!process.waitFor(10, TimeUnit.SECONDS)) {
                process.destroyForcibly();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            process.destroyForcibly();
        }
        family.stream().filter(ProcessHandle::isAlive).forEach(ProcessHandle::destroyForcibly);
    }
}
