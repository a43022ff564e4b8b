package io.rkllm.server.webui;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import org.opentest4j.AssertionFailedError;

/**
 * One tab of the browser: navigation, script evaluation, input, screenshots, and a record of what the page did
 * (every request it made with its response, every console error and uncaught exception).
 */
final class BrowserTab {
    /** A request the page made, and what came back (status -1 and size 0 until then). */
    static final class Request {
        final String url;
        final String type;
        final String method;
        final String body;
        volatile int status = -1;
        volatile String contentEncoding = "";
        volatile long encodedBytes;
        volatile boolean finished;

        Request(String url, String type, String method, String body) {
            this.url = url;
            this.type = type;
            this.method = method;
            this.body = body;
        }

        @Override
        public String toString() {
            return type + " " + url + " -> " + status + (contentEncoding.isEmpty() ? "" : " " + contentEncoding)
                    + " " + encodedBytes + " B";
        }
    }

    private final DevTools devTools;
    private final String targetId;
    private final String sessionId;
    private final List<String> problems = new CopyOnWriteArrayList<>();
    private final Map<String, Request> requests = new ConcurrentHashMap<>();
    private final List<Request> inOrder = new CopyOnWriteArrayList<>();
    private final Semaphore loads = new Semaphore(0);

    private BrowserTab(DevTools devTools, String targetId, String sessionId) {
        this.devTools = devTools;
        this.targetId = targetId;
        this.sessionId = sessionId;
    }

    static BrowserTab open(DevTools devTools) throws Exception {
        String target = devTools.send(null, "Target.createTarget",
                DevTools.JSON.createObjectNode().put("url", "about:blank")).get("targetId").asText();
        String session = devTools.send(null, "Target.attachToTarget",
                DevTools.JSON.createObjectNode().put("targetId", target).put("flatten", true)).get("sessionId").asText();
        BrowserTab tab = new BrowserTab(devTools, target, session);
        devTools.listen(event -> {
            if (session.equals(event.sessionId())) {
                tab.onEvent(event.method(), event.params());
            }
        });
        for (String domain : List.of("Page", "Runtime", "Network", "Log", "DOM")) {
            tab.send(domain + ".enable", null);
        }
        return tab;
    }

    private void onEvent(String method, JsonNode p) {
        switch (method) {
            case "Page.loadEventFired" -> loads.release();
            // confirm() and alert() answered yes, from another thread: this one delivers the reply
            case "Page.javascriptDialogOpening" -> Thread.ofVirtual().start(() -> {
                try {
                    send("Page.handleJavaScriptDialog", params().put("accept", true));
                } catch (Exception e) {
                    problems.add("dialog left open: " + e);
                }
            });
            case "Runtime.consoleAPICalled" -> {
                String type = p.path("type").asText();
                if (type.equals("error") || type.equals("assert")) {
                    List<String> args = new ArrayList<>();
                    p.path("args").forEach(a -> args.add(a.path("value").asText(a.path("description").asText())));
                    problems.add("console." + type + ": " + String.join(" ", args));
                }
            }
            case "Runtime.exceptionThrown" -> problems.add("uncaught: " + p.path("exceptionDetails").path("exception")
                    .path("description").asText(p.path("exceptionDetails").path("text").asText()));
            case "Log.entryAdded" -> {
                JsonNode entry = p.path("entry");
                if (entry.path("level").asText().equals("error")) {
                    problems.add("log (" + entry.path("source").asText() + "): " + entry.path("text").asText() + " "
                            + entry.path("url").asText());
                }
            }
            case "Network.requestWillBeSent" -> {
                JsonNode request = p.path("request");
                Request r = new Request(request.path("url").asText(), p.path("type").asText(),
                        request.path("method").asText(), request.path("postData").asText(""));
                requests.put(p.path("requestId").asText(), r);
                inOrder.add(r);
            }
            case "Network.responseReceived" -> {
                Request r = requests.get(p.path("requestId").asText());
                if (r != null) {
                    JsonNode response = p.path("response");
                    r.status = response.path("status").asInt();
                    response.path("headers").properties().forEach(h -> {
                        if (h.getKey().equalsIgnoreCase("content-encoding")) {
                            r.contentEncoding = h.getValue().asText();
                        }
                    });
                }
            }
            case "Network.loadingFinished" -> {
                Request r = requests.get(p.path("requestId").asText());
                if (r != null) {
                    r.encodedBytes = p.path("encodedDataLength").asLong();
                    r.finished = true;
                }
            }
            default -> {
            }
        }
    }

    JsonNode send(String method, ObjectNode params) throws Exception {
        return devTools.send(sessionId, method, params);
    }

    static ObjectNode params() {
        return DevTools.JSON.createObjectNode();
    }

    /** Console errors, uncaught exceptions and error log entries (failed loads, refused by the policy...). */
    List<String> problems() {
        return List.copyOf(problems);
    }

    List<Request> requests() {
        return List.copyOf(inOrder);
    }

    void forgetRequests() {
        inOrder.clear();
        requests.clear();
    }

    /** Opens {@code url} and waits for its load event. */
    void navigate(String url) throws Exception {
        loads.drainPermits();
        send("Page.navigate", params().put("url", url));
        awaitLoad();
    }

    void reload() throws Exception {
        loads.drainPermits();
        send("Page.reload", params().put("ignoreCache", false));
        awaitLoad();
    }

    private void awaitLoad() throws Exception {
        if (!loads.tryAcquire(60, TimeUnit.SECONDS)) {
            throw new AssertionFailedError("the page did not finish loading within 60 s; problems: " + problems);
        }
    }

    /** Evaluates a script expression in the page (a promise is awaited) and returns its value as JSON. */
    JsonNode eval(String expression) throws Exception {
        JsonNode result = send("Runtime.evaluate", params().put("expression", expression).put("awaitPromise", true)
                .put("returnByValue", true).put("userGesture", true));
        if (result.has("exceptionDetails")) {
            throw new AssertionFailedError("script failed: " + expression + "\n" + result.get("exceptionDetails"));
        }
        return result.path("result").path("value");
    }

    /** Polls {@code expression} until it is truthy; fails at the deadline with its last value. */
    JsonNode waitFor(String what, Duration limit, String expression) throws Exception {
        long deadline = System.nanoTime() + limit.toNanos();
        JsonNode last;
        while (true) {
            last = eval(expression);
            if (truthy(last)) {
                return last;
            }
            if (System.nanoTime() > deadline) {
                throw new AssertionFailedError("waited " + limit.toMillis() + " ms for " + what + "; last: " + last
                        + "; page problems: " + problems);
            }
            Thread.sleep(25);
        }
    }

    private static boolean truthy(JsonNode v) {
        return !(v.isMissingNode() || v.isNull() || (v.isBoolean() && !v.asBoolean()) || (v.isNumber() && v.asDouble() == 0)
                || (v.isTextual() && v.asText().isEmpty()));
    }

    /** Types text into the focused element as a keyboard would (input events included). */
    void type(String text) throws Exception {
        send("Input.insertText", params().put("text", text));
    }

    /**
     * One press of Enter (keydown with its text, keyup), as a keyboard sends it: what the page does not take, the
     * text area does (a new line). {@code modifiers}: 8 = Shift.
     */
    void pressEnter(int modifiers) throws Exception {
        send("Input.dispatchKeyEvent", params().put("type", "keyDown").put("key", "Enter").put("code", "Enter")
                .put("windowsVirtualKeyCode", 13).put("nativeVirtualKeyCode", 13).put("modifiers", modifiers)
                .put("text", "\r").put("unmodifiedText", "\r"));
        send("Input.dispatchKeyEvent", params().put("type", "keyUp").put("key", "Enter").put("code", "Enter")
                .put("windowsVirtualKeyCode", 13).put("nativeVirtualKeyCode", 13).put("modifiers", modifiers));
    }

    /** Sets the files of a file input, as a user picking them would (a change event follows). */
    void setFiles(String selector, Path... files) throws Exception {
        int root = send("DOM.getDocument", params()).path("root").path("nodeId").asInt();
        int node = send("DOM.querySelector", params().put("nodeId", root).put("selector", selector)).path("nodeId").asInt();
        ObjectNode p = params().put("nodeId", node);
        var list = p.putArray("files");
        for (Path f : files) {
            list.add(f.toAbsolutePath().toString());
        }
        send("DOM.setFileInputFiles", p);
    }

    void viewport(int width, int height, boolean mobile) throws Exception {
        send("Emulation.setDeviceMetricsOverride", params().put("width", width).put("height", height)
                .put("deviceScaleFactor", 1).put("mobile", mobile));
    }

    void emulateDarkScheme(boolean dark) throws Exception {
        ObjectNode p = params();
        p.putArray("features").addObject().put("name", "prefers-color-scheme").put("value", dark ? "dark" : "light");
        send("Emulation.setEmulatedMedia", p);
    }

    void screenshot(Path file) throws Exception {
        String data = send("Page.captureScreenshot", params().put("format", "png")).path("data").asText();
        Files.createDirectories(file.getParent());
        Files.write(file, Base64.getDecoder().decode(data));
    }

    void close() throws Exception {
        devTools.send(null, "Target.closeTarget", params().put("targetId", targetId));
    }
}
