package io.rkllm.server.webui;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class WebUiBrowserTest {
    @TempDir
    static Path dir;
    static SimulatedServer server;
    static Chromium browser;

    @BeforeAll
    static void start() throws Exception {
        Optional<Path> chromium = Chromium.executable();
        assumeTrue(chromium.isPresent(), "no Chromium");
        server = SimulatedServer.start(dir.resolve("server"), Map.of());
        browser = Chromium.start(chromium.get(), dir.resolve("profile"));
    }

    @AfterAll
    static void stop() {
        if (browser != null) {
            browser.close();
        }
        if (server != null) {
            server.close();
        }
    }

    @Test
    void explore() throws Exception {
        BrowserTab tab = browser.newTab();
        tab.viewport(1280, 800, false);
        tab.navigate(server.url("/"));
        Thread.sleep(3000);
        System.out.println("BOOTED " + tab.eval("document.documentElement.className + ' ' + document.getElementById('boot').textContent"));
        System.out.println("PROBLEMS " + tab.problems());
        System.out.println("REQUESTS " + tab.requests());
        tab.screenshot(Path.of("target/explore.png"));
        assertThat(true).isTrue();
    }
}
