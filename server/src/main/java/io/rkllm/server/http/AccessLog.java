package io.rkllm.server.http;

import io.javalin.http.Context;
import io.rkllm.server.api.ApiException;
import io.rkllm.server.logging.LogText;
import io.rkllm.server.pipeline.Usage;
import java.util.Locale;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One line per request: method, path, status, duration, and for generations the model, tokens
 * and prefill/decode times. Values a client controls are escaped so they cannot break the line.
 */
public final class AccessLog {
    private static final Logger LOG = LoggerFactory.getLogger("access");
    public static final String MODEL = "rkllm.model";
    public static final String DETAIL = "rkllm.detail";
    public static final String START = "rkllm.start";

    private AccessLog() {
    }

    public static void record(Context ctx, Usage usage, String finishReason) {
        ctx.attribute(DETAIL, String.format(Locale.ROOT,
                "prompt=%d cached=%d completion=%d prefill_ms=%.0f decode_ms=%.0f queue_ms=%d ttft_ms=%d finish=%s",
                usage.promptTokens(), usage.cachedTokens(), usage.completionTokens(), usage.prefillMs(),
                usage.generateMs(), usage.queueMillis(), usage.timeToFirstTokenMillis(), finishReason));
    }

    public static void error(Context ctx, ApiException e) {
        ctx.attribute(DETAIL, "error=" + e.code().orElse(e.type()) + " after the stream started");
    }

    public static void disconnected(Context ctx) {
        ctx.attribute(DETAIL, "client disconnected: generation aborted");
    }

    public static void log(Context ctx, int status, float millis, boolean enabled) {
        if (!enabled) {
            return;
        }
        Object model = ctx.attribute(MODEL);
        Object detail = ctx.attribute(DETAIL);
        if (detail == null && ctx.attribute(ErrorResponses.WRITTEN) instanceof ApiException e) {
            // the status alone (400) does not say which of a dozen checks refused the request
            detail = "error=" + e.code().orElse(e.type());
        }
        LOG.info("{} {} {} {}ms{}{} id={}", ctx.method(), LogText.escape(ctx.path()), status, Math.round(millis),
                model == null ? "" : " model=" + LogText.escape(model.toString()),
                detail == null ? "" : " " + detail,
                LogText.escape(String.valueOf(ctx.res().getHeader(RequestIds.HEADER))));
    }
}
