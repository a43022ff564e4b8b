package io.rkllm.server.logging;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.PatternLayout;
import ch.qos.logback.classic.spi.LoggingEvent;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The hand-written layout writes exactly what Logback's PatternLayout makes of {@link LogConfigurator#PATTERN}. */
class LogLineLayoutTest {
    private final LoggerContext context = new LoggerContext();

    private PatternLayout patternLayout() {
        PatternLayout layout = new PatternLayout();
        layout.setContext(context);
        layout.getInstanceConverterMap().put("safeMsg", SafeMessageConverter::new);
        layout.getInstanceConverterMap().put("safeEx", SafeThrowableConverter::new);
        layout.setPattern(LogConfigurator.PATTERN);
        layout.start();
        return layout;
    }

    @Test
    void sameLinesAsThePattern() {
        PatternLayout expected = patternLayout();
        var actual = LogConfigurator.layout(context);
        Logger access = context.getLogger("access");
        Logger registry = context.getLogger("io.rkllm.server.engine.ModelRegistry");
        Exception cause = new IllegalArgumentException("inner\nforged");
        cause.addSuppressed(new java.io.IOException("suppressed\r"));
        List<LoggingEvent> events = List.of(
                new LoggingEvent("x", access, Level.INFO, "GET {} 200 {}ms", null, new Object[] {"/health", 3}),
                new LoggingEvent("x", registry, Level.WARN, "model {} failed", null, new Object[] {"a\nb"}),
                new LoggingEvent("x", registry, Level.ERROR, "load failed", new IllegalStateException("outer", cause),
                        null),
                new LoggingEvent("x", registry, Level.DEBUG, "", null, null),
                new LoggingEvent("x", access, Level.TRACE, null, null, null));
        long midnight = java.time.LocalDate.now().atStartOfDay(java.time.ZoneId.systemDefault()).toInstant().toEpochMilli();
        long[] times = {midnight + 5, midnight + 13 * 3_600_000L + 7 * 60_000L + 9_000L + 45, midnight + 86_399_999L};
        for (LoggingEvent event : events) {
            for (long time : times) {
                event.setTimeStamp(time);
                assertThat(actual.doLayout(event)).isEqualTo(expected.doLayout(event));
            }
        }
    }
}
