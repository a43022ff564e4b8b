package io.rkllm.server.webui;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.awt.Color;
import java.awt.Graphics2D;
import java.awt.image.BufferedImage;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.function.DoublePredicate;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.imageio.ImageIO;
import io.rkllm.server.download.StandInHub;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.opentest4j.AssertionFailedError;

/**
 * The chat page in a real headless Chromium (Debian's package, driven over the DevTools protocol) against a real
 * server on the simulated runtime with the bundled simulated models, as {@code ./rkllm-server --simulate} serves
 * them. Skipped, saying why, where no Chromium is installed ({@code .ci/run} installs it).
 *
 * <p>Screenshots go to {@code server/target/web-ui-screenshots/}; docs/images/ holds copies of them.
 */
class WebUiBrowserTest {
    static final String TEXT_MODEL = "qwen2.5-0.5b-sim";
    static final String VISION_MODEL = "qwen3-vl-2b-sim";
    static final String THINKING_MODEL = "qwen3-1.7b-sim";
    static final Duration ANSWER = Duration.ofSeconds(60);
    static final Path SCREENSHOTS = Path.of("target", "web-ui-screenshots");

    @TempDir
    static Path dir;
    static SimulatedServer server;
    static Chromium browser;
    BrowserTab tab;
    int answersBefore;

    static final String NO_CHROMIUM = "skipped: the chat page's browser tests need Chromium, and there is no chromium"
            + " on the PATH (nor an executable at $RKLLM_CHROMIUM): apt-get install chromium";

    @BeforeAll
    static void start() throws Exception {
        Optional<Path> chromium = Chromium.executable();
        if (chromium.isEmpty()) {
            // said once here, and by each test as its skip reason (a class-level skip would show no test at all)
            System.err.println("WebUiBrowserTest: " + NO_CHROMIUM);
            return;
        }
        server = SimulatedServer.start(dir.resolve("server"), Map.of());
        browser = Chromium.start(chromium.get(), dir.resolve("profile"));
    }

    @BeforeEach
    void needsChromium() {
        assumeTrue(browser != null, NO_CHROMIUM);
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

    @AfterEach
    void closeTab() throws Exception {
        if (tab != null) {
            tab.close();
        }
    }

    /** A new tab on the page, booted, with the model list loaded, on a new conversation. */
    BrowserTab open(SimulatedServer on, int width, int height, boolean mobile) throws Exception {
        tab = browser.newTab();
        // every file fetched whole, as on a first visit (the tests share the browser's cache)
        tab.send("Network.setCacheDisabled", BrowserTab.params().put("cacheDisabled", true));
        tab.viewport(width, height, mobile);
        tab.navigate(on.url("/"));
        awaitBooted(tab);
        tab.eval("document.getElementById('new-chat').click()");
        return tab;
    }

    static void awaitBooted(BrowserTab tab) throws Exception {
        tab.waitFor("the page to start", Duration.ofSeconds(30),
                "document.documentElement.classList.contains('booted')");
        tab.waitFor("the model list", Duration.ofSeconds(30), "document.querySelectorAll('#model option').length >= 3");
    }

    void selectModel(String id) throws Exception {
        tab.eval("(() => { const s = document.getElementById('model'); s.value = '" + id + "';"
                + " s.dispatchEvent(new Event('change')); return s.value; })()");
    }

    /** Types into the message box as a keyboard would and presses Enter. */
    void send(String text) throws Exception {
        answersBefore = answers();
        tab.eval("document.getElementById('input').focus()");
        tab.type(text);
        tab.pressEnter(0);
    }

    /**
     * Nothing in the page's console or uncaught, and no event handler attribute anywhere in the live DOM. The
     * browser's version is in the message: a browser update that starts reporting something shows up here first.
     */
    void assertPageQuiet() throws Exception {
        assertThat(tab.problems()).as("the page's console and uncaught errors in %s", browser.version()).isEmpty();
        assertThat(tab.eval("[...document.querySelectorAll('*')].flatMap(e => [...e.attributes]"
                + ".filter(a => a.name.startsWith('on')).map(a => e.tagName + ' ' + a.name))").toString())
                .as("inline event handlers in the live page in %s", browser.version()).isEqualTo("[]");
    }

    int answers() throws Exception {
        return tab.eval("document.querySelectorAll('.message.assistant').length").asInt();
    }

    /** Waits until the answer to the message just sent has ended (the stop button gone) and returns its text. */
    String awaitAnswer() throws Exception {
        tab.waitFor("the answer to end", ANSWER, "document.querySelectorAll('.message.assistant').length > "
                + answersBefore + " && document.getElementById('stop').hidden"
                + " && !document.querySelector('.message.assistant.streaming')");
        return tab.eval("document.querySelector('.message.assistant:last-of-type .content').textContent").asText()
                .strip();
    }

    String lastStats() throws Exception {
        return tab.eval("(document.querySelector('.message.assistant:last-of-type .stats') || {}).textContent || ''")
                .asText();
    }

    static double pollMetric(String what, Callable<Double> probe, DoublePredicate done) throws Exception {
        long deadline = System.nanoTime() + Duration.ofSeconds(15).toNanos();
        while (true) {
            double value = probe.call();
            if (done.test(value)) {
                return value;
            }
            if (System.nanoTime() > deadline) {
                throw new AssertionFailedError("waited 15 s for " + what + "; last: " + value);
            }
            Thread.sleep(20);
        }
    }

    @Test
    void thePageLoadsFromThisServerAloneWithoutErrorsAndSmall() throws Exception {
        open(server, 1280, 800, false);
        String origin = server.url("/");
        pollMetric("every request to finish", () -> tab.requests().stream().allMatch(r -> r.finished) ? 1.0 : 0.0,
                v -> v == 1);
        // pictures of earlier tests' conversations are data: URLs, which stay in the page
        List<BrowserTab.Request> requests = tab.requests().stream().filter(r -> !r.url.startsWith("data:")).toList();
        assertThat(requests).as("requests of the page").isNotEmpty()
                .allSatisfy(r -> assertThat(r.url).as("every request stays on this server").startsWith(origin));
        long firstLoad = 0;
        for (BrowserTab.Request r : requests) {
            assertThat(r.status).as(r.toString()).isEqualTo(200);
            if (r.type.equals("Script") || r.type.equals("Stylesheet") || r.type.equals("Document")) {
                assertThat(r.contentEncoding).as("compressed: " + r).isEqualTo("gzip");
            }
            firstLoad += r.encodedBytes;
        }
        System.out.printf("web-ui: first load %d requests, %d bytes on the wire%n", requests.size(), firstLoad);
        assertThat(firstLoad).as("bytes of the first load").isPositive().isLessThan(300_000);
        assertThat(tab.problems()).as("console errors and failed loads").isEmpty();

        // the model list: chat models with what they can do and their load state; no embedding model
        JsonNode options = tab.eval("[...document.querySelectorAll('#model option')].map(o => o.textContent)");
        assertThat(options.toString()).contains(THINKING_MODEL + " (thinking, tools", VISION_MODEL + " (tools, vision")
                .doesNotContain("embedding");
        // the theme button goes from the system's to light, to dark and back
        tab.eval("document.getElementById('theme').click()");
        assertThat(tab.eval("document.documentElement.dataset.theme").asText()).isEqualTo("light");
        tab.eval("document.getElementById('theme').click()");
        assertThat(tab.eval("document.documentElement.dataset.theme").asText()).isEqualTo("dark");
        assertThat(tab.eval("document.getElementById('code-dark').media").asText()).isEqualTo("all");
        tab.eval("document.getElementById('theme').click()");
        assertThat(tab.eval("'theme' in document.documentElement.dataset").asBoolean()).isFalse();

        selectModel(VISION_MODEL);
        boolean loaded = DevTools.JSON.readTree(server.get("/v1/models/" + VISION_MODEL).body()).get("loaded")
                .asBoolean();
        assertThat(tab.eval("document.getElementById('model-facts').textContent").asText())
                .isEqualTo("toolsvision" + (loaded ? "loaded" : "not loaded") + "4096 tokens context");
    }

    @Test
    void aMessageStreamsAnAnswerRenderedAsSanitisedMarkdownAndTheFollowUpUsesTheCache() throws Exception {
        open(server, 1280, 800, false);
        selectModel(TEXT_MODEL);
        // Shift+Enter starts a new line, Enter sends
        answersBefore = answers();
        tab.eval("document.getElementById('input').focus()");
        tab.type("Count for me");
        tab.pressEnter(8);
        tab.type("please [[tokens:600]]");
        tab.pressEnter(0);
        assertThat(tab.eval("document.querySelector('.message.user .bubble').textContent").asText())
                .isEqualTo("Count for me\nplease [[tokens:600]]");
        // the answer grows while it streams: seen part-way, with the stop button up
        int partial = tab.waitFor("the first tokens", ANSWER, "(() => { const a = document.querySelector("
                + "'.message.assistant.streaming .content'); return a && !document.getElementById('stop').hidden"
                + " ? a.textContent.length : 0; })()").asInt();
        String whole = awaitAnswer();
        assertThat(whole.length()).as("the whole answer against what was shown part-way").isGreaterThan(partial);
        assertThat(lastStats()).contains("tokens/s", "600 tokens", "0 of");

        // the follow-up: the conversation's id reaches the server, whose KV cache holds the first turn
        send("Now show code [[say:# Result\n\nSee `x`:\n\n```python\nprint('hi')\n```\n\n"
                + "<img src=x onerror=\"window.pwned=1\"><script>window.pwned=2</script> E=mc<sup>2</sup>\n\n"
                + "![tracker](http://192.0.2.1/t.png) [link](https://example.org)]]");
        awaitAnswer();
        Matcher cached = Pattern.compile("(\\d+) of (\\d+) prompt tokens from the cache").matcher(lastStats());
        assertThat(cached.find()).as(lastStats()).isTrue();
        assertThat(Integer.parseInt(cached.group(1))).as("tokens reused from the KV cache: " + lastStats())
                .isGreaterThan(600);

        String last = ".message.assistant:last-of-type .content";
        assertThat(tab.eval("document.querySelector('" + last + " h1').textContent").asText()).isEqualTo("Result");
        assertThat(tab.eval("document.querySelector('" + last + " .code-head').textContent").asText())
                .isEqualTo("python");
        assertThat(tab.eval("document.querySelectorAll('" + last + " pre code.hljs span').length").asInt())
                .as("highlighted code").isPositive();
        assertThat(tab.eval("!!document.querySelector('" + last + " .code-block button[aria-label=\"Copy code\"]')")
                .asBoolean()).isTrue();
        // model output never runs: no handler, no script, no remote picture, links open apart
        assertThat(tab.eval("typeof window.pwned").asText()).isEqualTo("undefined");
        assertThat(tab.eval("document.querySelectorAll('#messages script, #messages [onerror]').length").asInt())
                .isZero();
        assertThat(tab.eval("[...document.querySelectorAll('#messages img')].map(i => i.src)").toString())
                .doesNotContain("192.0.2.1");
        assertThat(tab.eval("[...document.querySelectorAll('" + last + " .blocked-picture')].map(b => b.textContent)")
                .toString()).contains("[tracker: not loaded, http://192.0.2.1/t.png]");
        assertThat(tab.eval("document.querySelector('" + last + " a').rel").asText()).isEqualTo("noopener noreferrer");
        // the model's own HTML is shown as the text it wrote, bare formatting tags apart
        assertThat(tab.eval("document.querySelector('" + last + "').textContent").asText())
                .contains("<img src=x onerror=\"window.pwned=1\"><script>window.pwned=2</script>");
        assertThat(tab.eval("document.querySelector('" + last + " sup').textContent").asText()).isEqualTo("2");
        assertThat(tab.requests()).allSatisfy(r -> assertThat(r.url).matches(u -> u.startsWith(server.url("/"))
                || u.startsWith("data:"), "on this server or in the page"));
        assertPageQuiet();
    }

    @Test
    void stopEndsTheGenerationOnTheServer() throws Exception {
        open(server, 1280, 800, false);
        selectModel(TEXT_MODEL);
        Callable<Double> aborts = () -> server.metric("rkllm_aborts_total", "model", TEXT_MODEL, "cause", "client_gone");
        double before = aborts.call();
        send("A long one [[tokens:100000]]");
        tab.waitFor("the first tokens", ANSWER, "(() => { const a = document.querySelector("
                + "'.message.assistant.streaming .content'); return a && a.textContent.length > 20; })()");
        // under an answer still streaming: no stats yet, no buttons, and no "null" where they will be
        assertThat(tab.eval("document.querySelector('.message.assistant.streaming .actions').textContent").asText())
                .doesNotContain("null");
        tab.eval("document.getElementById('stop').click()");
        // the server saw the client go and aborted the run
        pollMetric("the server to abort the generation", aborts, v -> v >= before + 1);
        pollMetric("the model to be idle", () -> server.get("/health").body().contains("\"busy\":true") ? 1.0 : 0.0,
                v -> v == 0);
        String partial = awaitAnswer();
        assertThat(partial).isNotBlank();
        assertThat(tab.eval("document.querySelector('.message.assistant:last-of-type .status').textContent").asText())
                .contains("Stopped.");
        assertThat(tab.eval("document.getElementById('send').hidden").asBoolean()).isFalse();
        assertPageQuiet();
    }

    @Test
    void aReloadKeepsTheConversationWhichCanBeSearchedAndExported() throws Exception {
        open(server, 1280, 800, false);
        selectModel(TEXT_MODEL);
        send("Remember the aardvark [[say:I will remember it.]]");
        assertThat(awaitAnswer()).isEqualTo("I will remember it.");
        tab.reload();
        awaitBooted(tab);
        assertThat(tab.eval("document.querySelector('.conversation.active .title').textContent").asText())
                .isEqualTo("Remember the aardvark [[say:I will remember it.]]");
        assertThat(tab.eval("[...document.querySelectorAll('#messages .message')].map(m => m.textContent).join('|')")
                .asText()).contains("Remember the aardvark", "I will remember it.", "tokens/s");
        assertThat(tab.eval("document.getElementById('model').value").asText()).isEqualTo(TEXT_MODEL);

        tab.eval("(() => { const s = document.getElementById('search'); s.value = 'AARDVARK';"
                + " s.dispatchEvent(new Event('input')); })()");
        assertThat(tab.eval("document.querySelectorAll('#conversations .conversation').length").asInt()).isEqualTo(1);
        tab.eval("(() => { const s = document.getElementById('search'); s.value = 'no such words';"
                + " s.dispatchEvent(new Event('input')); })()");
        assertThat(tab.eval("document.querySelectorAll('#conversations .conversation').length").asInt()).isZero();

        Path downloads = Files.createDirectories(dir.resolve("downloads"));
        tab.send("Browser.setDownloadBehavior", BrowserTab.params().put("behavior", "allow")
                .put("downloadPath", downloads.toString()));
        tab.eval("document.getElementById('export').click()");
        Path exported = pollFile(downloads);
        JsonNode json = DevTools.JSON.readTree(Files.readString(exported));
        assertThat(json.path("format").asText()).isEqualTo("rkllm-webui");
        assertThat(json.path("conversations").toString()).contains("Remember the aardvark", "I will remember it.");
        assertPageQuiet();
    }

    @Test
    void anAnswerCanBeRegeneratedAMessageEditedAndBothDeleted() throws Exception {
        open(server, 1280, 800, false);
        selectModel(TEXT_MODEL);
        send("First [[say:one]]");
        assertThat(awaitAnswer()).isEqualTo("one");

        answersBefore = 0;
        tab.eval("document.querySelector('.message.assistant button[aria-label=Regenerate]').click()");
        assertThat(awaitAnswer()).isEqualTo("one");
        assertThat(tab.eval("document.querySelectorAll('#messages .message').length").asInt()).isEqualTo(2);

        tab.eval("document.querySelector('.message.user button[aria-label=\\'Edit and send again\\']').click()");
        tab.waitFor("the edit box", Duration.ofSeconds(5), "!!document.querySelector('.edit-box textarea')");
        tab.eval("(() => { const a = document.querySelector('.edit-box textarea'); a.value = 'Edited [[say:two]]';"
                + " a.focus(); })()");
        tab.pressEnter(0);
        assertThat(awaitAnswer()).isEqualTo("two");
        assertThat(tab.eval("[...document.querySelectorAll('#messages .message')].map(m => m.dataset.role"
                + " + ':' + (m.querySelector('.bubble, .content') || {}).textContent.trim())").toString())
                .isEqualTo("[\"user:Edited [[say:two]]\",\"assistant:two\"]");

        // deleting the question takes its answer with it
        tab.eval("document.querySelector('.message.user button[aria-label=\\'Delete this message and its answer\\']')"
                + ".click()");
        tab.waitFor("an empty conversation", Duration.ofSeconds(5), "!!document.querySelector('#messages .welcome')");
        // and the conversation itself goes (after a confirm(), answered yes)
        int listed = tab.eval("document.querySelectorAll('#conversations .conversation').length").asInt();
        tab.eval("document.querySelector('#conversations .conversation.active .remove').click()");
        tab.waitFor("the conversation to go", Duration.ofSeconds(5),
                "document.querySelectorAll('#conversations .conversation').length === " + (listed - 1));
        assertPageQuiet();
    }

    @Test
    void thinkingIsFoldedApartAndTheSettingsReachTheServer() throws Exception {
        open(server, 1280, 800, false);
        selectModel(THINKING_MODEL);
        send("Plan it [[say:<think>Step one, then step two.</think>Done in **two** steps.]]");
        assertThat(awaitAnswer()).isEqualTo("Done in two steps.");
        String thinking = ".message.assistant:last-of-type details.thinking";
        assertThat(tab.eval("document.querySelector('" + thinking + "').open").asBoolean()).as("folded").isFalse();
        assertThat(tab.eval("document.querySelector('" + thinking + " summary').textContent").asText())
                .startsWith("Thought for");
        assertThat(tab.eval("document.querySelector('" + thinking + " .md').textContent").asText().strip())
                .isEqualTo("Step one, then step two.");

        // the settings: system prompt, temperature, max tokens, thinking off (in a new chat: the simulated model
        // would obey the first turn's directive again)
        tab.eval("document.getElementById('new-chat').click()");
        tab.eval("document.getElementById('open-settings').click()");
        tab.waitFor("the settings", Duration.ofSeconds(5), "document.getElementById('settings').open");
        tab.eval("(() => { const f = document.getElementById('settings-form');"
                + " f.elements.systemPrompt.value = 'Answer like a pirate.'; f.elements.temperature.value = '0.3';"
                + " f.elements.maxTokens.value = '7'; f.elements.thinking.checked = false;"
                + " f.querySelector('button[value=save]').click(); })()");
        tab.waitFor("the settings to close", Duration.ofSeconds(5), "!document.getElementById('settings').open");
        tab.forgetRequests();
        send("Go on [[tokens:50]]");
        awaitAnswer();
        assertThat(lastStats()).contains("7 tokens");
        assertThat(tab.eval("document.querySelector('.message.assistant:last-of-type .status').textContent").asText())
                .contains("token limit");
        assertThat(tab.eval("document.querySelector('.message.assistant:last-of-type details.thinking').hidden")
                .asBoolean()).as("no thinking with thinking off").isTrue();
        JsonNode body = DevTools.JSON.readTree(tab.requests().stream()
                .filter(r -> r.url.endsWith("/v1/chat/completions")).findFirst().orElseThrow().body);
        assertThat(body.path("model").asText()).isEqualTo(THINKING_MODEL);
        assertThat(body.path("messages").toString()).isEqualTo("[{\"role\":\"system\",\"content\":"
                + "\"Answer like a pirate.\"},{\"role\":\"user\",\"content\":\"Go on [[tokens:50]]\"}]");
        assertThat(body.path("temperature").asDouble()).isEqualTo(0.3);
        assertThat(body.path("max_tokens").asInt()).isEqualTo(7);
        assertThat(body.path("chat_template_kwargs").path("enable_thinking").asBoolean(true)).isFalse();
        assertThat(body.path("prompt_cache_key").asText()).startsWith("webui-");
        // an earlier answer goes back without its thinking
        send("And? [[say:Yes.]]");
        awaitAnswer();
        JsonNode followUp = DevTools.JSON.readTree(tab.requests().stream()
                .filter(r -> r.url.endsWith("/v1/chat/completions")).reduce((a, b) -> b).orElseThrow().body);
        assertThat(followUp.path("messages")).hasSize(4);
        assertThat(followUp.path("messages").get(2).path("role").asText()).isEqualTo("assistant");
        assertThat(followUp.path("messages").get(2).has("reasoning_content")).isFalse();

        tab.eval("localStorage.removeItem('rkllm.webui.settings')");
        assertPageQuiet();
    }

    static Path pollFile(Path downloads) throws Exception {
        long deadline = System.nanoTime() + Duration.ofSeconds(15).toNanos();
        while (System.nanoTime() < deadline) {
            try (var files = Files.list(downloads)) {
                Optional<Path> json = files.filter(f -> f.toString().endsWith(".json")).findFirst();
                if (json.isPresent() && Files.size(json.get()) > 0) {
                    return json.get();
                }
            }
            Thread.sleep(20);
        }
        throw new AssertionFailedError("no exported file in " + downloads);
    }

    @Test
    void aPictureReachesTheVisionModelAndATextModelSaysItCannotSee() throws Exception {
        open(server, 1280, 800, false);
        Path picture = dir.resolve("quadrants.png");
        BufferedImage image = new BufferedImage(96, 64, BufferedImage.TYPE_INT_RGB);
        Graphics2D g = image.createGraphics();
        g.setColor(Color.RED);
        g.fillRect(0, 0, 48, 32);
        g.setColor(Color.BLUE);
        g.fillRect(48, 32, 48, 32);
        g.dispose();
        ImageIO.write(image, "png", picture.toFile());

        selectModel(TEXT_MODEL);
        tab.eval("document.getElementById('attach').click()");
        assertThat(tab.eval("document.getElementById('composer-note').textContent").asText())
                .contains(TEXT_MODEL + " cannot see pictures", VISION_MODEL);

        selectModel(VISION_MODEL);
        // a pasted picture lands in the message box too; removed again, then one is attached
        tab.eval("(async () => { const bytes = await (await fetch('ui/icon.svg')).blob();"
                + " const png = await new Promise(r => { const c = document.createElement('canvas'); c.width = 8;"
                + " c.height = 8; c.toBlob(r, 'image/png'); });"
                + " const data = new DataTransfer(); data.items.add(new File([png], 'pasted.png', {type: 'image/png'}));"
                + " document.getElementById('input').dispatchEvent(new ClipboardEvent('paste',"
                + " {clipboardData: data, bubbles: true, cancelable: true})); return bytes.size; })()");
        tab.waitFor("the pasted picture", Duration.ofSeconds(10),
                "document.querySelectorAll('#attachments img').length === 1");
        tab.eval("document.querySelector('#attachments button').click()");
        assertThat(tab.eval("document.querySelectorAll('#attachments img').length").asInt()).isZero();
        double encoded = server.metric("rkllm_vision_images_total", "model", VISION_MODEL, "source", "encoder");
        tab.setFiles("#attach-file", picture);
        tab.waitFor("the picture in the message box", Duration.ofSeconds(10),
                "document.querySelectorAll('#attachments img').length === 1");
        send("What is in this picture?");
        awaitAnswer();
        assertThat(tab.eval("document.querySelector('.message.user .pictures img').src").asText())
                .startsWith("data:image/png;base64,");
        assertThat(server.metric("rkllm_vision_images_total", "model", VISION_MODEL, "source", "encoder"))
                .as("pictures the image encoder ran on").isEqualTo(encoded + 1);
        Matcher prompt = Pattern.compile("of (\\d+) prompt tokens").matcher(lastStats());
        assertThat(prompt.find()).as(lastStats()).isTrue();
        assertThat(Integer.parseInt(prompt.group(1))).as("prompt tokens: the picture's 196 and the text")
                .isGreaterThan(196);

        // kept in the browser: the conversation's record names its picture, which is stored once on its own (the
        // saves while an answer streams write the text only)
        String stored = tab.eval("new Promise((resolve, reject) => { const open = indexedDB.open('rkllm-webui');"
                + " open.onerror = () => reject(open.error); open.onsuccess = () => {"
                + " const t = open.result.transaction(['conversations', 'pictures']);"
                + " const all = t.objectStore('conversations').getAll(); const keys = t.objectStore('pictures').getAllKeys();"
                + " t.oncomplete = () => { const c = all.result.find(c => c.messages.some(m => m.images && m.images.length));"
                + " const image = c.messages.find(m => m.images && m.images.length).images[0];"
                + " resolve(JSON.stringify({key: image.key || null, inline: 'dataUrl' in image,"
                + " record: JSON.stringify(c).length, stored: keys.result.includes(image.key)})); }; }; })").asText();
        JsonNode record = DevTools.JSON.readTree(stored);
        assertThat(record.path("inline").asBoolean()).as(stored).isFalse();
        assertThat(record.path("stored").asBoolean()).as(stored).isTrue();
        assertThat(record.path("record").asInt()).as("the record without the picture's bytes: " + stored)
                .isLessThan(4000);
        tab.reload();
        awaitBooted(tab);
        assertThat(tab.eval("document.querySelector('.message.user .pictures img').src").asText())
                .as("the picture after a reload").startsWith("data:image/png;base64,");

        // pictures are read when their conversation opens, not with the list: another chat on top, the page loaded
        // again counting what it reads from the pictures' store
        tab.eval("document.getElementById('new-chat').click()");
        selectModel(TEXT_MODEL);
        send("Hello there.");
        awaitAnswer();
        tab.send("Page.addScriptToEvaluateOnNewDocument", BrowserTab.params().put("source", "window.pictureReads = 0;"
                + " const getAll = IDBObjectStore.prototype.getAll; IDBObjectStore.prototype.getAll = function (...a) {"
                + " if (this.name === 'pictures') window.pictureReads++; return getAll.apply(this, a); };"));
        tab.reload();
        awaitBooted(tab);
        assertThat(tab.eval("window.pictureReads").asInt()).as("pictures read as the page opened").isZero();
        tab.eval("[...document.querySelectorAll('#conversations .conversation .open')]"
                + ".find(b => !b.closest('.active')).click()");
        tab.waitFor("the picture of the conversation opened", Duration.ofSeconds(10),
                "(document.querySelector('.message.user .pictures img') || {}).src?.startsWith('data:image/png')");
        assertThat(tab.eval("window.pictureReads").asInt()).as("pictures read as the conversation opened")
                .isEqualTo(1);
        assertPageQuiet();
    }

    @Test
    void aLongAnswerIsStreamedAtTheCostPerTokenOfAShortOneAndShownWhole() throws Exception {
        // models 100 times faster than the others' pace, with room for a 4,000-token answer after its 4,000-token
        // request: the whole answer arrives, every block rendered and every code block highlighted
        try (SimulatedServer fast = SimulatedServer.start(dir.resolve("fast"), Map.of(), 0.002, 16384)) {
            open(fast, 1280, 800, false);
            selectModel(TEXT_MODEL);
            String answer = markdownAnswer(4000);
            send("Write it [[say:" + answer.replace("\\", "\\\\").replace("\n", "\\n") + "]]");
            String shown = awaitAnswer();
            assertThat(shown).as("the whole answer shown; %s", tab.eval("document.querySelector("
                    + "'.message.assistant:last-of-type .status').textContent").asText()).contains("Section 40");
            assertThat(lastStats()).contains("4000 tokens");
            assertThat(tab.eval("document.querySelectorAll('.message.assistant:last-of-type .content pre code.hljs')"
                    + ".length").asInt()).as("code blocks highlighted").isEqualTo(count(answer, "```python"));
            assertThat(tab.eval("document.querySelectorAll('.message.assistant:last-of-type .content h2').length")
                    .asInt()).isEqualTo(count(answer, "## Section"));

            // the page's renderer as an answer streams in: a piece of 3 tokens (9 bytes) at a time, each drawn as
            // the page draws a streaming answer, then the whole answer drawn at once, as the page does at its end.
            // Its work is counted in characters through the Markdown lexer, the sanitiser and the highlighter (the
            // same on a loaded machine as on an idle one); its time is printed beside
            JsonNode costs = DevTools.JSON.readTree(tab.eval("(async () => {"
                    + " const md = await import('./ui/js/markdown.js');"
                    + " let work = 0; const count = (owner, name, size) => { const f = owner[name].bind(owner);"
                    + "   owner[name] = (...a) => { work += size(a[0]); return f(...a); }; };"
                    + " count(window.marked, 'lexer', t => t.length); count(window.marked, 'parse', t => t.length);"
                    + " count(window.DOMPurify, 'sanitize', h => h.length);"
                    + " count(window.hljs, 'highlight', c => c.length); count(window.hljs, 'highlightAuto', c => c.length);"
                    + " const stream = (text, draw) => { const div = document.createElement('div'); work = 0;"
                    + "   const start = performance.now();"
                    + "   for (let end = 9; end < text.length + 9; end += 9) draw(div, text.slice(0, end));"
                    + "   return {ms: performance.now() - start, work, html: div.innerHTML}; };"
                    + " const whole = text => { const div = document.createElement('div'); md.renderMarkdown(div, text);"
                    + "   return div.innerHTML; };"
                    + " const short = " + DevTools.JSON.writeValueAsString(markdownAnswer(200)) + ";"
                    + " const long = " + DevTools.JSON.writeValueAsString(answer) + ";"
                    + " const shortRuns = [0, 1, 2].map(() => stream(short, md.renderStreaming));"
                    + " const longRun = stream(long, md.renderStreaming);"
                    + " const codeShort = " + DevTools.JSON.writeValueAsString(codeAnswer(200)) + ";"
                    + " const codeLong = " + DevTools.JSON.writeValueAsString(codeAnswer(20000)) + ";"
                    + " const codeShortRuns = [0, 1, 2].map(() => stream(codeShort, md.renderStreaming));"
                    + " const codeLongRun = stream(codeLong, md.renderStreaming);"
                    + " const listShort = " + DevTools.JSON.writeValueAsString(listAnswer(200)) + ";"
                    + " const listLong = " + DevTools.JSON.writeValueAsString(listAnswer(20000)) + ";"
                    + " const listShortRuns = [0, 1, 2].map(() => stream(listShort, md.renderStreaming));"
                    + " const listLongRun = stream(listLong, md.renderStreaming);"
                    + " const redrawShort = stream(short, md.renderMarkdown);"
                    + " const redrawMedium = stream(long.slice(0, 3000), md.renderMarkdown);"
                    + " return JSON.stringify({shortMs: Math.min(...shortRuns.map(r => r.ms)), longMs: longRun.ms,"
                    + "   shortWork: shortRuns[0].work, longWork: longRun.work, redrawShortWork: redrawShort.work,"
                    + "   redrawMediumWork: redrawMedium.work, redrawShortMs: redrawShort.ms,"
                    + "   redrawMediumMs: redrawMedium.ms,"
                    + "   codeShortWork: codeShortRuns[0].work, codeLongWork: codeLongRun.work,"
                    + "   codeShortMs: Math.min(...codeShortRuns.map(r => r.ms)), codeLongMs: codeLongRun.ms,"
                    + "   sameCode: codeLongRun.html === whole(codeLong) && codeShortRuns[0].html === whole(codeShort),"
                    + "   listShortWork: listShortRuns[0].work, listLongWork: listLongRun.work,"
                    + "   listShortMs: Math.min(...listShortRuns.map(r => r.ms)), listLongMs: listLongRun.ms,"
                    + "   sameList: listLongRun.html === whole(listLong) && listShortRuns[0].html === whole(listShort),"
                    + "   same: longRun.html === whole(long) && shortRuns[0].html === whole(short)}); })()").asText());
            System.out.printf("WebUiBrowserTest: rendering while streaming, per token: 200 tokens %.0f characters"
                    + " through lexer, sanitiser and highlighter, %.1f µs (best of three); 4,000 tokens %.0f"
                    + " characters, %.1f µs. The whole answer redrawn at every piece, as before: 200 tokens %.0f"
                    + " characters, %.1f µs; 1,000 tokens %.0f characters, %.1f µs. In %s%n",
                    costs.path("shortWork").asDouble() / 200, costs.path("shortMs").asDouble() * 1000 / 200,
                    costs.path("longWork").asDouble() / 4000, costs.path("longMs").asDouble() * 1000 / 4000,
                    costs.path("redrawShortWork").asDouble() / 200, costs.path("redrawShortMs").asDouble() * 1000 / 200,
                    costs.path("redrawMediumWork").asDouble() / 1000,
                    costs.path("redrawMediumMs").asDouble() * 1000 / 1000, browser.version());
            System.out.printf("WebUiBrowserTest: one code block streamed, per token: 200 tokens %.0f characters,"
                    + " %.1f µs; 20,000 tokens %.0f characters, %.1f µs%n",
                    costs.path("codeShortWork").asDouble() / 200, costs.path("codeShortMs").asDouble() * 1000 / 200,
                    costs.path("codeLongWork").asDouble() / 20000, costs.path("codeLongMs").asDouble() * 1000 / 20000);
            assertThat(costs.path("same").asBoolean()).as("drawn piece by piece, the answer is what it is drawn whole")
                    .isTrue();
            assertThat(costs.path("sameCode").asBoolean()).as("a code block drawn piece by piece is the same drawn whole")
                    .isTrue();
            System.out.printf("WebUiBrowserTest: one list streamed, per token: 200 tokens %.0f characters,"
                    + " %.1f µs; 20,000 tokens %.0f characters, %.1f µs%n",
                    costs.path("listShortWork").asDouble() / 200, costs.path("listShortMs").asDouble() * 1000 / 200,
                    costs.path("listLongWork").asDouble() / 20000, costs.path("listLongMs").asDouble() * 1000 / 20000);
            assertThat(costs.path("sameList").asBoolean()).as("a list drawn piece by piece is the same drawn whole")
                    .isTrue();
            // a list's finished items stay drawn, only its last item is drawn again: the work per token does not grow
            assertThat(costs.path("listLongWork").asDouble() / 20000)
                    .as("characters per token of one list streamed, 20,000 against 200 tokens")
                    .isLessThanOrEqualTo(2 * costs.path("listShortWork").asDouble() / 200);
            // an open code block grows by what came, highlighted once it closes: the work per token does not grow
            assertThat(costs.path("codeLongWork").asDouble() / 20000)
                    .as("characters per token of one code block streamed, 20,000 against 200 tokens")
                    .isLessThanOrEqualTo(2 * costs.path("codeShortWork").asDouble() / 200);
            // the measure sees work that grows with the answer: redrawing it whole at every piece grows at once
            assertThat(costs.path("redrawMediumWork").asDouble() / 1000)
                    .as("characters per token redrawing everything, 1,000 against 200 tokens")
                    .isGreaterThan(2 * costs.path("redrawShortWork").asDouble() / 200);
            assertThat(costs.path("longWork").asDouble() / 4000)
                    .as("characters per token rendered while streaming, 4,000 against 200 tokens")
                    .isLessThanOrEqualTo(2 * costs.path("shortWork").asDouble() / 200);
            assertPageQuiet();
        }
    }

    /**
     * An answer that is mostly one code block, as a model writing a file answers, of exactly {@code tokens} simulated
     * tokens (3 bytes each): a line of text, the block's lines, its closing fence and a last line.
     */
    static String codeAnswer(int tokens) {
        String end = "\n```\n\nThat is the whole file.";
        StringBuilder text = new StringBuilder("Here is the file:\n\n```python\n");
        for (int line = 1; text.length() < tokens * 3 - end.length(); line++) {
            text.append("value_").append(line).append(" = compute(").append(line).append(", cores=4)\n");
        }
        text.setLength(tokens * 3 - end.length());
        return text.append(end).toString();
    }

    /**
     * An answer that is mostly one numbered list, as a model answering with steps writes it, of exactly {@code tokens}
     * simulated tokens (3 bytes each): a line of text, the items (every third with a nested point, every fifth with
     * inline code), and a last line after the list.
     */
    static String listAnswer(int tokens) {
        String end = "\n\nThat is every step.";
        StringBuilder text = new StringBuilder("Here are the steps:\n\n");
        for (int item = 1; text.length() < tokens * 3 - end.length(); item++) {
            text.append(item).append(". **Step ").append(item).append("**: set the value to ").append(item * 7)
                    .append(item % 5 == 0 ? " with `cores=4`" : "").append('\n');
            if (item % 3 == 0) {
                // nested under the item: indented as far as its text starts ("10. " takes four)
                text.append(" ".repeat(String.valueOf(item).length() + 2)).append("- check that step ").append(item - 1)
                        .append(" is done\n");
            }
        }
        text.setLength(tokens * 3 - end.length());
        return text.append(end).toString();
    }

    static int count(String text, String what) {
        int count = 0;
        for (int i = text.indexOf(what); i >= 0; i = text.indexOf(what, i + 1)) {
            count++;
        }
        return count;
    }

    /**
     * An answer as models write them, of exactly {@code tokens} simulated tokens (a [[say:]] answer is 3 bytes a
     * token): a section of about 100 tokens at a time, each a heading, a paragraph, and in turn a list or a code
     * block.
     */
    static String markdownAnswer(int tokens) {
        StringBuilder text = new StringBuilder();
        for (int section = 1; text.length() < tokens * 3; section++) {
            text.append("## Section ").append(section).append("\n\nThe board runs the model on its NPU while the")
                    .append(" cores serve requests; answer ").append(section).append(" says how, in plain words.\n\n");
            if (section % 2 == 0) {
                text.append("```python\nfor core in range(").append(section).append("):\n    print(core)\n```\n\n");
            } else {
                text.append("- first point\n- second point, with `code`\n\n");
            }
        }
        while (text.length() < tokens * 3) {
            text.append('.');
        }
        return text.substring(0, tokens * 3 - 1) + ".";
    }

    @Test
    void serverErrorsAreShownInTheConversation() throws Exception {
        open(server, 1280, 800, false);
        selectModel(TEXT_MODEL);
        send("Fail please [[error]]");
        awaitAnswer();
        assertThat(tab.eval("document.querySelector('.message.assistant:last-of-type .error-box').textContent")
                .asText()).startsWith("Error").contains("runtime_error");
        assertThat(tab.eval("document.querySelector('.message.assistant:last-of-type .actions').textContent")
                .asText()).as("an error has no stats").doesNotContain("null");
        // a refused request (400) too: a message too long for the context (in a new chat: the simulated model
        // would fail on the first message's directive again)
        tab.eval("document.getElementById('new-chat').click()");
        send("x ".repeat(20_000));
        awaitAnswer();
        assertThat(tab.eval("document.querySelector('.message.assistant:last-of-type .error-box').textContent")
                .asText()).contains("400", "context_length_exceeded");
        // the page's console stays clean: failed requests are answers, not page errors
        assertThat(tab.problems()).as("the page's console and uncaught errors in %s", browser.version())
                .allSatisfy(p -> assertThat(p).contains("400"));
    }

    @Test
    void onAPhoneNothingScrollsSideways() throws Exception {
        open(server, 390, 844, true);
        selectModel(TEXT_MODEL);
        send("Wide things [[say:```\n" + "x".repeat(400) + "\n```\n\n" + "y".repeat(300)
                + "\n\n| a | b | c | d | e | f | g | h |\n|---|---|---|---|---|---|---|---|\n"
                + "| aaaaaaaa | bbbbbbbb | cccccccc | dddddddd | eeeeeeee | ffffffff | gggggggg | hhhhhhhh |]]");
        awaitAnswer();
        assertNoSidewaysScroll(390);
        tab.eval("document.getElementById('menu').click()");
        tab.waitFor("the conversation list", Duration.ofSeconds(5),
                "document.getElementById('app').classList.contains('drawer-open')");
        assertNoSidewaysScroll(390);
        assertPageQuiet();
    }

    void assertNoSidewaysScroll(int width) throws Exception {
        JsonNode sizes = tab.eval("({doc: document.documentElement.scrollWidth, body: document.body.scrollWidth,"
                + " messages: document.getElementById('messages').scrollWidth,"
                + " messagesBox: document.getElementById('messages').clientWidth, inner: window.innerWidth})");
        assertThat(sizes.get("inner").asInt()).isEqualTo(width);
        assertThat(sizes.get("doc").asInt()).as("page width " + sizes).isLessThanOrEqualTo(width);
        assertThat(sizes.get("body").asInt()).as("body width " + sizes).isLessThanOrEqualTo(width);
        assertThat(sizes.get("messages").asInt()).as("conversation width " + sizes)
                .isLessThanOrEqualTo(sizes.get("messagesBox").asInt());
    }

    @Test
    void screenshotsAtDesktopAndPhoneSizes() throws Exception {
        // a server of its own: another port is another origin, whose browser storage holds none of the other
        // tests' conversations; the example conversation is imported (the simulated models write no real answers)
        try (SimulatedServer fresh = SimulatedServer.start(dir.resolve("screenshots"), Map.of())) {
            screenshots(fresh);
        }
    }

    void screenshots(SimulatedServer fresh) throws Exception {
        open(fresh, 1280, 800, false);
        Path chats = Path.of(resource("example-chats.json"));
        tab.setFiles("#import-file", chats);
        tab.waitFor("the imported conversations", Duration.ofSeconds(10),
                "document.querySelectorAll('#conversations .conversation').length >= 4");
        tab.eval("[...document.querySelectorAll('#conversations .open')].find(b => b.textContent.startsWith('Blink'))"
                + ".click()");
        tab.waitFor("the imported conversation", Duration.ofSeconds(10), "document.querySelectorAll('.code-block').length");
        tab.emulateDarkScheme(false);
        tab.screenshot(SCREENSHOTS.resolve("desktop-light.png"));
        tab.emulateDarkScheme(true);
        tab.screenshot(SCREENSHOTS.resolve("desktop-dark.png"));
        tab.viewport(390, 844, true);
        // at phone width the sidebar becomes a drawer that slides shut: the pictures show it shut, not half-way
        tab.waitFor("the sidebar's slide to end", Duration.ofSeconds(10), "document.getAnimations().length === 0");
        tab.emulateDarkScheme(false);
        tab.eval("document.getElementById('messages').scrollTop = 0");
        assertNoSidewaysScroll(390);
        tab.screenshot(SCREENSHOTS.resolve("phone-light.png"));
        tab.emulateDarkScheme(true);
        tab.screenshot(SCREENSHOTS.resolve("phone-dark.png"));
        assertPageQuiet();
    }

    /** A page on a server without any model: booted, its list (empty) loaded, the welcome saying how to get one. */
    BrowserTab openEmpty(SimulatedServer on) throws Exception {
        tab = browser.newTab();
        tab.viewport(1280, 800, false);
        tab.navigate(on.url("/"));
        tab.waitFor("the page to start", Duration.ofSeconds(30),
                "document.documentElement.classList.contains('booted')");
        tab.eval("document.getElementById('new-chat').click()");
        tab.waitFor("the welcome of a server without models", Duration.ofSeconds(30),
                "document.getElementById('welcome-download')");
        return tab;
    }

    /** Fills the download dialog (open) and presses Download. */
    void download(String repo, String quant) throws Exception {
        tab.eval("(() => { const f = document.getElementById('download-form'); f.elements.repo.value = '" + repo
                + "'; f.elements.quant.value = '" + quant + "'; document.getElementById('download-start').click(); })()");
    }

    static byte[] tinyModel(Path file) throws Exception {
        io.rkllm.llama.gguf.TinyLlama.write(file, io.rkllm.llama.gguf.TinyLlama.Options.chat());
        return Files.readAllBytes(file);
    }

    @Test
    void aServerWithoutModelsSaysHowToGetOneAndTheDownloadedModelAnswersAtOnce() throws Exception {
        try (StandInHub hub = StandInHub.start();
             io.rkllm.server.download.StandInRegistry registry = io.rkllm.server.download.StandInRegistry.start();
             SimulatedServer empty = SimulatedServer.empty(dir.resolve("empty"), hub.endpoint(), registry.endpoint(),
                     Map.of())) {
            byte[] model = tinyModel(dir.resolve("tiny-page.gguf"));
            hub.repo("tiny/Tiny-Chat-GGUF").file("Tiny-Chat-Q4_K_M.gguf", model).file("Tiny-Chat-Q8_0.gguf", model);
            registry.model("library/qwen3:4b").layer("model", model).publish();
            openEmpty(empty);
            assertThat(tab.eval("document.querySelector('.welcome').textContent").asText())
                    .contains("There is no model on this server yet")
                    .contains("rkllm-server pull bartowski/Qwen2.5-1.5B-Instruct-GGUF");
            assertThat(tab.eval("document.getElementById('model').options.length").asInt()).isZero();
            tab.screenshot(SCREENSHOTS.resolve("no-model.png"));

            tab.eval("document.getElementById('welcome-download').click()");
            assertThat(tab.eval("document.getElementById('download').open").asBoolean()).isTrue();
            download("hf.co/tiny/Tiny-Chat-GGUF", "q8_0");

            tab.waitFor("the download to end", Duration.ofSeconds(60),
                    "document.getElementById('download-status').textContent.startsWith('Downloaded')");
            assertThat(tab.eval("document.getElementById('download-status').textContent").asText())
                    .isEqualTo("Downloaded: tiny-chat-q8_0, selected above.");
            assertThat(tab.eval("document.getElementById('download-bar').value").asDouble()).isEqualTo(1.0);
            assertThat(tab.eval("document.getElementById('model').value").asText()).isEqualTo("tiny-chat-q8_0");
            tab.screenshot(SCREENSHOTS.resolve("download.png"));
            tab.eval("document.getElementById('download-close').click()");
            assertThat(tab.eval("document.getElementById('download').open").asBoolean()).isFalse();

            send("Hello");
            awaitAnswer();
            assertThat(tab.eval("document.querySelectorAll('.message.assistant .error').length").asInt()).isZero();

            // an Ollama name, as in Open WebUI's pull box: its tag chooses, a quantisation typed beside it is not added
            tab.eval("document.getElementById('open-download').click()");
            download("qwen3:4b", "Q4_K_M");
            tab.waitFor("the download by an Ollama name", Duration.ofSeconds(60),
                    "document.getElementById('download-status').textContent.startsWith('Downloaded')");
            assertThat(tab.eval("document.getElementById('download-status').textContent").asText())
                    .isEqualTo("Downloaded: qwen3-4b, selected above.");
            assertThat(registry.downloads()).hasSize(1);
            assertPageQuiet();
        }
    }

    @Test
    void aDownloadShowsItsProgressCanBeCancelledAndSaysWhatTheServerRefused() throws Exception {
        try (StandInHub hub = StandInHub.start();
             SimulatedServer empty = SimulatedServer.empty(dir.resolve("cancel"), hub.endpoint(), Map.of());
             SimulatedServer closed = SimulatedServer.empty(dir.resolve("closed"), hub.endpoint(),
                     Map.of("security.allow_pull", "off"))) {
            byte[] model = tinyModel(dir.resolve("tiny-big.gguf"));
            hub.repo("tiny/Big-GGUF").file("Big-Q4_K_M.gguf", java.util.Arrays.copyOf(model, 8_000_000));
            hub.holdAfter(1 << 20);
            openEmpty(empty);
            // the dialog's text for a pull's lines: a transfer that stopped and waits is said, not taken for progress
            assertThat(tab.eval("(async () => { const d = await import('./ui/js/downloads.js');"
                    + " const p = new d.PullProgress(() => 0);"
                    + " p.add({status: 'pulling 0123456789ab', digest: 'sha256:0123', total: 2000, completed: 900});"
                    + " return p.add({status: 'pulling 0123456789ab: stopped at 45% (connection reset); trying again"
                    + " in 4 s'}).text; })()").asText())
                    .isEqualTo("Stopped at 45% (connection reset); trying again in 4 s");
            tab.eval("document.getElementById('open-download').click()");
            download("tiny/Big-GGUF", "");
            hub.awaitHolding();
            tab.waitFor("progress", Duration.ofSeconds(30),
                    "/^1\\d% of 8\\.0 MB/.test(document.getElementById('download-status').textContent)");
            assertThat(tab.eval("document.getElementById('download-cancel').hidden").asBoolean()).isFalse();
            assertThat(tab.eval("document.getElementById('download-start').hidden").asBoolean()).isTrue();

            tab.eval("document.getElementById('download-cancel').click()");

            tab.waitFor("the cancel", Duration.ofSeconds(30),
                    "document.getElementById('download-status').textContent.startsWith('Cancelled')");
            hub.release();
            assertThat(tab.eval("document.getElementById('download-start').hidden").asBoolean()).isFalse();
            assertThat(tab.eval("document.getElementById('model').options.length").asInt()).isZero();

            download("tiny/Big-GGUF", "Q2_K");
            tab.waitFor("the refusal", Duration.ofSeconds(30), "!document.getElementById('download-error').hidden");
            assertThat(tab.eval("document.getElementById('download-error').textContent").asText())
                    .isEqualTo("tiny/Big-GGUF has no Q2_K quantisation; it has Q4_K_M (pull tiny/Big-GGUF:Q4_K_M)");
            assertPageQuiet();
            tab.close();

            openEmpty(closed);
            tab.eval("document.getElementById('welcome-download').click()");
            download("tiny/Big-GGUF", "");
            tab.waitFor("the 403", Duration.ofSeconds(30), "!document.getElementById('download-error').hidden");
            assertThat(tab.eval("document.getElementById('download-error').textContent").asText())
                    .isEqualTo("pulling and deleting models is off on this server (security.allow_pull: off)");
        }
    }

    @Test
    void aServerWithKeysGetsItsKeyFromTheSettings() throws Exception {
        try (SimulatedServer locked = SimulatedServer.start(dir.resolve("locked"),
                Map.of("security.api_keys", "sesame", "security.public_models", "false"))) {
            tab = browser.newTab();
            tab.viewport(1280, 800, false);
            tab.navigate(locked.url("/"));
            tab.waitFor("the page to ask for the key", Duration.ofSeconds(30),
                    "document.getElementById('banner').textContent.includes('needs an API key')");
            tab.eval("document.querySelector('#banner button').click()");
            tab.waitFor("the settings", Duration.ofSeconds(5), "document.getElementById('settings').open");
            tab.eval("document.querySelector('#settings-form [name=apiKey]').focus()");
            tab.type("sesame");
            tab.pressEnter(0); // Enter in a field saves
            tab.waitFor("the settings to close", Duration.ofSeconds(5), "!document.getElementById('settings').open");
            awaitBooted(tab);
            tab.waitFor("the banner to go", Duration.ofSeconds(10), "document.getElementById('banner').hidden");
            selectModel(TEXT_MODEL);
            send("Hello [[say:Hello with a key.]]");
            assertThat(awaitAnswer()).isEqualTo("Hello with a key.");
            assertThat(tab.eval("localStorage.getItem('rkllm.webui.settings')").asText()).contains("sesame");
            // the key went in the requests that needed it: a 401 was the only failed load
            assertThat(tab.problems()).allSatisfy(p -> assertThat(p).contains("401"));
        }
    }

    @Test
    void aChatRefusedForItsKeyLeadsToTheSettings() throws Exception {
        // the model list is public by default; the chat is not
        try (SimulatedServer locked = SimulatedServer.start(dir.resolve("public-list"),
                Map.of("security.api_keys", "sesame"))) {
            tab = browser.newTab();
            tab.viewport(1280, 800, false);
            tab.navigate(locked.url("/"));
            awaitBooted(tab);
            selectModel(TEXT_MODEL);
            send("Hello");
            awaitAnswer();
            assertThat(tab.eval("document.querySelector('.message.assistant:last-of-type .error-box').textContent")
                    .asText()).contains("401");
            tab.waitFor("the page to ask for the key", Duration.ofSeconds(10),
                    "document.getElementById('banner').textContent.includes('needs an API key')");
            tab.eval("document.querySelector('#banner button').click()");
            tab.waitFor("the settings", Duration.ofSeconds(5), "document.getElementById('settings').open");
        }
    }

    static String resource(String name) throws URISyntaxException {
        return Path.of(WebUiBrowserTest.class.getResource(name).toURI()).toString();
    }
}
