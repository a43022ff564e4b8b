package io.rkllm.server.logging;

import ch.qos.logback.classic.pattern.ThrowableProxyConverter;
import ch.qos.logback.classic.spi.IThrowableProxy;
import ch.qos.logback.classic.spi.StackTraceElementProxy;

/**
 * {@code %safeEx}: stack traces as usual (one frame a line), but each exception's message with control
 * characters escaped: a message may quote what a client sent.
 */
public final class SafeThrowableConverter extends ThrowableProxyConverter {
    @Override
    protected String throwableProxyToString(IThrowableProxy proxy) {
        return super.throwableProxyToString(new Escaped(proxy));
    }

    private record Escaped(IThrowableProxy proxy) implements IThrowableProxy {
        @Override
        public String getOverridingMessage() {
            String message = proxy.getOverridingMessage();
            return message == null ? null : LogText.escape(message);
        }

        @Override
        public String getMessage() {
            String message = proxy.getMessage();
            return message == null ? null : LogText.escape(message);
        }

        @Override
        public String getClassName() {
            return proxy.getClassName();
        }

        @Override
        public StackTraceElementProxy[] getStackTraceElementProxyArray() {
            return proxy.getStackTraceElementProxyArray();
        }

        @Override
        public int getCommonFrames() {
            return proxy.getCommonFrames();
        }

        @Override
        public IThrowableProxy getCause() {
            return proxy.getCause() == null ? null : new Escaped(proxy.getCause());
        }

        @Override
        public IThrowableProxy[] getSuppressed() {
            IThrowableProxy[] suppressed = proxy.getSuppressed();
            if (suppressed == null) {
                return null;
            }
            IThrowableProxy[] out = new IThrowableProxy[suppressed.length];
            for (int i = 0; i < suppressed.length; i++) {
                out[i] = new Escaped(suppressed[i]);
            }
            return out;
        }

        @Override
        public boolean isCyclic() {
            return proxy.isCyclic();
        }
    }
}
