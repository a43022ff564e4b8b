package io.rkllm.server.webui;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.zip.GZIPInputStream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The chat page's routes over real HTTP, without a browser: who gets the page and who gets Ollama's answer at
 * {@code /}, the files (every one the page refers to, compressed, revalidated), what stays unreachable, and the
 * page off or behind API keys.
 */
class WebUiRoutesTest {
    static final String BROWSER_ACCEPT = "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8";
    private static final Pattern REFERENCE = Pattern.compile("(?:src|href)=\"(ui/[^\"]+)\"");
    private static final Pattern IMPORT = Pattern.compile("from '\\./([^']+)'");

    @TempDir
    static Path dir;
    static SimulatedServer server;
    final HttpClient http = HttpClient.newHttpClient();

    @BeforeAll
    static void start() {
        server = SimulatedServer.start(dir.resolve("on"), Map.of());
    }

    @AfterAll
    static void stop() {
        server.close();
    }

    HttpResponse<byte[]> get(SimulatedServer on, String path, String... headers) throws Exception {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(on.url(path))).timeout(Duration.ofSeconds(30));
        for (int i = 0; i + 1 < headers.length; i += 2) {
            request.header(headers[i], headers[i + 1]);
        }
        return http.send(request.build(), HttpResponse.BodyHandlers.ofByteArray());
    }

    static String text(HttpResponse<byte[]> response) throws IOException {
        byte[] body = response.body();
        if (response.headers().firstValue("Content-Encoding").orElse("").equals("gzip")) {
            try (var in = new GZIPInputStream(new ByteArrayInputStream(body))) {
                body = in.readAllBytes();
            }
        }
        return new String(body, StandardCharsets.UTF_8);
    }

    static String type(HttpResponse<byte[]> response) {
        return response.headers().firstValue("Content-Type").orElse("").replace(" ", "").toLowerCase();
    }

    @Test
    void ollamaClientsKeepTheirAnswerAndBrowsersGetThePage() throws Exception {
        for (String accept : new String[] {null, "*/*", "application/json"}) {
            HttpResponse<byte[]> r = accept == null ? get(server, "/") : get(server, "/", "Accept", accept);
            assertThat(r.statusCode()).isEqualTo(200);
            assertThat(text(r)).as("Accept " + accept).isEqualTo("Ollama is running");
            assertThat(type(r)).isEqualTo("text/plain;charset=utf-8");
            assertThat(r.headers().firstValue("Vary")).hasValue("Accept");
        }
        HttpResponse<byte[]> head = http.send(HttpRequest.newBuilder(URI.create(server.url("/")))
                .method("HEAD", HttpRequest.BodyPublishers.noBody()).build(), HttpResponse.BodyHandlers.ofByteArray());
        assertThat(head.statusCode()).isEqualTo(200);

        HttpResponse<byte[]> page = get(server, "/", "Accept", BROWSER_ACCEPT);
        assertThat(page.statusCode()).isEqualTo(200);
        assertThat(type(page)).isEqualTo("text/html;charset=utf-8");
        assertThat(text(page)).contains("<script src=\"ui/js/main.js\" type=\"module\"></script>");
        assertThat(page.headers().firstValue("Content-Security-Policy").orElseThrow())
                .contains("default-src 'none'", "script-src 'self'", "connect-src 'self'", "img-src 'self' data: blob:");
        assertThat(page.headers().firstValue("X-Frame-Options")).hasValue("DENY");
        assertThat(page.headers().allValues("Vary")).containsExactly("Accept, Accept-Encoding");
    }

    @Test
    void everyFileThePageRefersToIsServedCompressedAndTheFirstLoadIsSmall() throws Exception {
        // index.html's scripts, styles and icon, then every module the scripts import, followed transitively
        String index = text(get(server, "/", "Accept", BROWSER_ACCEPT));
        Set<String> files = new LinkedHashSet<>();
        Matcher m = REFERENCE.matcher(index);
        while (m.find()) {
            files.add("/" + m.group(1));
        }
        Deque<String> modules = new ArrayDeque<>(files.stream().filter(f -> f.startsWith("/ui/js/")).toList());
        while (!modules.isEmpty()) {
            String module = modules.pop();
            Matcher i = IMPORT.matcher(text(get(server, module)));
            while (i.find()) {
                String imported = "/ui/js/" + i.group(1);
                if (files.add(imported)) {
                    modules.push(imported);
                }
            }
        }
        assertThat(files).contains("/ui/app.css", "/ui/js/main.js", "/ui/js/markdown.js",
                "/ui/vendor/marked/marked.umd.js", "/ui/vendor/dompurify/purify.min.js",
                "/ui/vendor/highlightjs/highlight.min.js", "/ui/vendor/highlightjs/github-dark.min.css");
        long compressed = get(server, "/", "Accept", BROWSER_ACCEPT, "Accept-Encoding", "gzip").body().length;
        long plain = 0;
        for (String file : files) {
            HttpResponse<byte[]> r = get(server, file);
            assertThat(r.statusCode()).as(file).isEqualTo(200);
            assertThat(r.headers().firstValue("X-Content-Type-Options")).hasValue("nosniff");
            plain += r.body().length;
            HttpResponse<byte[]> gz = get(server, file, "Accept-Encoding", "gzip, deflate, br");
            if (!file.endsWith(".svg")) {
                assertThat(gz.headers().firstValue("Content-Encoding")).as(file).hasValue("gzip");
            }
            assertThat(text(gz)).as(file).isEqualTo(new String(r.body(), StandardCharsets.UTF_8));
            assertThat(gz.headers().firstValueAsLong("Content-Length")).as(file).hasValue(gz.body().length);
            compressed += gz.body().length;
        }
        System.out.printf("web-ui: %d files, %d bytes, %d compressed%n", files.size() + 1, plain, compressed);
        assertThat(compressed).as("the first load, compressed").isLessThan(300_000);
        assertThat(plain).as("the first load, uncompressed").isLessThan(1_000_000);
    }

    @Test
    void aFileIsRevalidatedByItsEtagPerEncoding() throws Exception {
        HttpResponse<byte[]> plain = get(server, "/ui/js/main.js");
        HttpResponse<byte[]> gz = get(server, "/ui/js/main.js", "Accept-Encoding", "gzip");
        String etag = plain.headers().firstValue("ETag").orElseThrow();
        String gzEtag = gz.headers().firstValue("ETag").orElseThrow();
        assertThat(etag).isNotEqualTo(gzEtag);
        assertThat(plain.headers().firstValue("Cache-Control")).hasValue("no-cache");
        assertThat(type(plain)).isEqualTo("application/javascript;charset=utf-8");
        assertThat(get(server, "/ui/js/main.js", "If-None-Match", etag).statusCode()).isEqualTo(304);
        assertThat(get(server, "/ui/js/main.js", "If-None-Match", gzEtag, "Accept-Encoding", "gzip").statusCode())
                .isEqualTo(304);
        // the other representation's tag does not match
        assertThat(get(server, "/ui/js/main.js", "If-None-Match", gzEtag).statusCode()).isEqualTo(200);
        assertThat(get(server, "/ui/js/main.js", "Accept-Encoding", "gzip;q=0").headers()
                .firstValue("Content-Encoding")).isEmpty();
    }

    @Test
    void nothingElseOfTheJarIsReachable() throws Exception {
        for (String path : new String[] {"/ui/nope.js", "/ui/js/", "/ui/rkllm-server-defaults.yaml",
                "/ui/vendor/dompurify/LICENSE", "/ui/..%2F..%2F..%2Frkllm-server-defaults.yaml",
                "/ui/%2e%2e/%2e%2e/%2e%2e/rkllm-server-defaults.yaml", "/ui/.hidden.js", "/ui/js//main.js",
                "/ui/index.html"}) {
            HttpResponse<byte[]> r = get(server, path);
            assertThat(r.statusCode()).as(path).isIn(400, 404);
            assertThat(text(r)).as(path).doesNotContain("server:").doesNotContain("import ");
        }
    }

    @Test
    void withCorsTheAnswersStillVaryByOrigin() throws Exception {
        try (SimulatedServer cors = SimulatedServer.start(dir.resolve("cors"),
                Map.of("security.cors_origins", "https://a.example"))) {
            HttpResponse<byte[]> page = get(cors, "/", "Accept", BROWSER_ACCEPT, "Origin", "https://a.example");
            assertThat(String.join(", ", page.headers().allValues("Vary"))).contains("Origin").contains("Accept");
            HttpResponse<byte[]> file = get(cors, "/ui/js/main.js", "Origin", "https://a.example");
            assertThat(String.join(", ", file.headers().allValues("Vary"))).contains("Origin")
                    .contains("Accept-Encoding");
        }
    }

    @Test
    void withTheSettingOffEveryClientGetsOllamasAnswer() throws Exception {
        try (SimulatedServer off = SimulatedServer.start(dir.resolve("off"), Map.of("server.web_ui", "false"))) {
            HttpResponse<byte[]> r = get(off, "/", "Accept", BROWSER_ACCEPT);
            assertThat(text(r)).isEqualTo("Ollama is running");
            assertThat(r.headers().firstValue("Vary")).isEmpty();
            assertThat(get(off, "/ui/js/main.js").statusCode()).isEqualTo(404);
        }
    }

    @Test
    void behindApiKeysThePageLoadsAndTheApiStillAsksForAKey() throws Exception {
        try (SimulatedServer locked = SimulatedServer.start(dir.resolve("locked"),
                Map.of("security.api_keys", "sesame", "security.public_models", "false"))) {
            assertThat(get(locked, "/", "Accept", BROWSER_ACCEPT).statusCode()).isEqualTo(200);
            assertThat(get(locked, "/ui/js/main.js").statusCode()).isEqualTo(200);
            assertThat(get(locked, "/v1/models").statusCode()).isEqualTo(401);
            assertThat(get(locked, "/v1/models", "Authorization", "Bearer sesame").statusCode()).isEqualTo(200);
            // no page file by that name: the answer is the one every unknown file gets, the key is not asked
            assertThat(get(locked, "/ui/nope.js").statusCode()).isEqualTo(404);
            assertThat(get(locked, "/uix").statusCode()).as("only the page's own prefix is public").isEqualTo(401);
        }
        try (SimulatedServer lockedOff = SimulatedServer.start(dir.resolve("locked-off"),
                Map.of("security.api_keys", "sesame", "server.web_ui", "false"))) {
            assertThat(get(lockedOff, "/ui/js/main.js").statusCode()).as("no page: an unknown route, key first")
                    .isEqualTo(401);
        }
    }
}
