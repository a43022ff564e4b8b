package io.rkllm.server.logging;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.classic.spi.LoggingEvent;
import ch.qos.logback.core.Layout;
import ch.qos.logback.core.read.ListAppender;
import io.rkllm.server.it.TestServer;
import io.rkllm.server.harness.RawHttp;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.LoggerFactory;

/** No client text breaks a line of the server's log layout, and keys never reach the log. */
class LogSafetyTest {
    static final String KEY = "sk-log-test-0123456789abcdef";

    @TempDir
    Path dir;

    /** The layout the server logs with (LogConfigurator). */
    static Layout<ILoggingEvent> productionLayout() {
        return io.rkllm.server.logging.LogConfigurator.layout(new LoggerContext());
    }

    @Test
    void messagesAndExceptionMessagesStayOnTheirLine() throws Exception {
        Layout<ILoggingEvent> layout = productionLayout();
        Logger logger = new LoggerContext().getLogger("t");
        LoggingEvent event = new LoggingEvent("x", logger, Level.WARN, "model {} failed",
                new IllegalStateException("bad\nINFO forged line\r\u001b[31m"), new Object[] {"a\n12:00:00.000 INFO x"});
        String out = layout.doLayout(event);
        String[] lines = out.split("\n");
        assertThat(lines[0]).contains("model a\\n12:00:00.000 INFO x failed");
        assertThat(lines[1]).isEqualTo("java.lang.IllegalStateException: bad\\nINFO forged line\\r\\u001b[31m");
        assertThat(lines[2]).startsWith("\tat ");
        assertThat(LogText.escape("tab\tok \u2028")).isEqualTo("tab\tok \\u2028");
    }

    @Test
    void aServerUnderOddRequestsLogsOneLinePerEventAndNoKey() throws Exception {
        Layout<ILoggingEvent> layout = productionLayout();
        LoggerContext context = (LoggerContext) LoggerFactory.getILoggerFactory();
        Logger root = context.getLogger(Logger.ROOT_LOGGER_NAME);
        Level before = root.getLevel();
        ListAppender<ILoggingEvent> captured = new ListAppender<>();
        captured.setContext(context);
        captured.start();
        root.addAppender(captured);
        root.setLevel(Level.DEBUG);
        try (TestServer server = TestServer.in(dir).model("m", Map.of()).set("logging.access_log", "true")
                .set("security.api_keys", KEY).start()) {
            for (String model : List.of("m\nINFO forged", "x\r\ny", "\u001b[2J", "m")) {
                String body = "{\"model\":" + new com.fasterxml.jackson.databind.ObjectMapper().writeValueAsString(model)
                        + ",\"messages\":[{\"role\":\"user\",\"content\":\"[[say:a\\nb]]\\nINFO forged\"}]}";
                send(server, "POST", "/v1/chat/completions", Map.of("Authorization", "Bearer " + KEY), body);
                send(server, "POST", "/v1/chat/completions", Map.of("Authorization", "Bearer " + KEY + "\u0001"), body);
                send(server, "POST", "/v1/chat/completions", Map.of("X-Api-Key", "wrong-" + KEY), body);
            }
            send(server, "GET", "/v1/models/%0d%0aINFO%20forged", Map.of(), null);
            send(server, "GET", "/v1/models/a%0Ab", Map.of("x-request-id", "id\u0001x"), null);
            send(server, "POST", "/v1/models/%0a/load", Map.of("Authorization", "Bearer " + KEY), "");
        } finally {
            root.detachAppender(captured);
            root.setLevel(before);
        }
        assertThat(captured.list).isNotEmpty();
        for (ILoggingEvent event : captured.list) {
            String line = layout.doLayout(event);
            String first = line.substring(0, line.indexOf('\n'));
            assertThat(line).as("event of %s", event.getLoggerName()).doesNotContain(KEY);
            if (event.getThrowableProxy() == null) {
                assertThat(line).as(first).endsWith("\n").hasLineCount(1);
            }
            assertThat(first).doesNotContain("\r").doesNotContain("\u001b");
        }
    }

    @Test
    void theAccessLineOfARefusedRequestNamesTheError() throws Exception {
        LoggerContext context = (LoggerContext) LoggerFactory.getILoggerFactory();
        Logger access = context.getLogger("access");
        ListAppender<ILoggingEvent> captured = new ListAppender<>();
        captured.setContext(context);
        captured.start();
        access.addAppender(captured);
        access.setLevel(Level.INFO);
        access.setAdditive(false);
        try (TestServer server = TestServer.in(dir).model("m", Map.of()).set("logging.access_log", "true").start()) {
            send(server, "POST", "/v1/chat/completions", Map.of(), "{\"model\":\"m\",\"messages\":[]}");
            send(server, "POST", "/v1/chat/completions", Map.of(), "{\"model\":\"nope\",\"messages\":"
                    + "[{\"role\":\"user\",\"content\":\"hi\"}]}");
        } finally {
            access.detachAppender(captured);
            access.setLevel(null);
            access.setAdditive(true);
        }
        assertThat(captured.list).map(ILoggingEvent::getFormattedMessage)
                .anySatisfy(line -> assertThat(line).contains("POST /v1/chat/completions 400 ", " error="))
                .anySatisfy(line -> assertThat(line).contains("POST /v1/chat/completions 404 ",
                        " error=model_not_found"));
    }

    private static void send(TestServer server, String method, String path, Map<String, String> headers, String body)
            throws Exception {
        Map<String, String> h = new java.util.LinkedHashMap<>(headers);
        h.put("Content-Type", "application/json");
        RawHttp.exchange("127.0.0.1", server.port(), RawHttp.request(method, path, h,
                body == null ? null : body.getBytes(StandardCharsets.UTF_8)), Duration.ofSeconds(20));
    }
}
