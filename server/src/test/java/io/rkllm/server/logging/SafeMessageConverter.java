package io.rkllm.server.logging;

import ch.qos.logback.classic.pattern.ClassicConverter;
import ch.qos.logback.classic.spi.ILoggingEvent;

/**
 * {@code %safeMsg}: the formatted message with control characters escaped, as LogLineLayout writes it;
 * LogLineLayoutTest renders {@code LogConfigurator.PATTERN} with it to compare the two layouts.
 */
final class SafeMessageConverter extends ClassicConverter {
    @Override
    public String convert(ILoggingEvent event) {
        return LogText.escape(event.getFormattedMessage());
    }
}
