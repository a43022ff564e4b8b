package io.rkllm.server.logging;

import ch.qos.logback.classic.pattern.ClassicConverter;
import ch.qos.logback.classic.spi.ILoggingEvent;

/**
 * {@code %safeMsg}: the formatted message with control characters escaped, so text a client sent
 * (a model name, a path, an error) can never start a forged log line.
 */
public final class SafeMessageConverter extends ClassicConverter {
    @Override
    public String convert(ILoggingEvent event) {
        return LogText.escape(event.getFormattedMessage());
    }
}
