package io.rkllm.server.http;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.javalin.Javalin;
import io.javalin.compression.CompressionStrategy;
import io.javalin.http.Context;
import io.javalin.http.Handler;
import io.rkllm.server.api.ApiException;
import io.rkllm.server.api.ChatRequestParser;
import io.rkllm.server.api.AnthropicRequestParser;
import io.rkllm.server.api.Json;
import io.rkllm.server.api.OllamaRequestParser;
import io.rkllm.server.api.RequestLimits;
import io.rkllm.server.config.ServerConfig;
import io.rkllm.server.metrics.HttpMetrics;
import io.rkllm.server.metrics.Metrics;
import io.rkllm.server.pipeline.ChatPipeline;
import java.util.function.Supplier;
import org.eclipse.jetty.server.ServerConnector;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The HTTP layer: routes (with and without the /v1 prefix, as llama-server), request ids, the
 * access log, and OpenAI-shaped errors for everything that goes wrong, including unknown routes.
 */
public final class HttpServer implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(HttpServer.class);
    /** Jetty's idle timeout must outlast the longest silence of a healthy request (prefill, queue). */
    private static final long IDLE_TIMEOUT_MS = 15 * 60 * 1000L;

    private final Javalin app;
    private final ObjectMapper mapper = Json.mapper();

    public HttpServer(ServerConfig config, ChatPipeline pipeline, Supplier<String> notReadyReason, Metrics metrics) {
        RequestIds ids = new RequestIds();
        ChatRequestParser parser = new ChatRequestParser(mapper, RequestLimits.DEFAULT);
        var driver = new RunDriver(pipeline, config.queue().keepAlive(), metrics);
        var chat = new CompletionHandler(driver, parser, mapper, false);
        var completions = new CompletionHandler(driver, parser, mapper, true);
        var ollama = new OllamaHandler(driver, new OllamaRequestParser(parser, RequestLimits.DEFAULT), mapper,
                config.models().idleUnload());
        var anthropic = new AnthropicHandler(driver, new AnthropicRequestParser(parser), mapper);
        var models = new ModelsHandler(pipeline, mapper);
        var health = new HealthHandler(pipeline, mapper, notReadyReason);
        boolean accessLog = config.logging().accessLog();
        app = Javalin.create(c -> {
            c.concurrency.useVirtualThreads = true;
            c.startup.showJavalinBanner = false;
            c.http.compressionStrategy = CompressionStrategy.NONE;
            c.http.maxRequestSize = 16L * 1024 * 1024;
            c.jetty.modifyServer(server -> server.addEventListener(new org.eclipse.jetty.util.component
                    .LifeCycle.Listener() {
                @Override
                public void lifeCycleStarted(org.eclipse.jetty.util.component.LifeCycle event) {
                    for (var connector : server.getConnectors()) {
                        if (connector instanceof ServerConnector sc) {
                            sc.setIdleTimeout(IDLE_TIMEOUT_MS);
                        }
                    }
                }
            }));
            c.requestLogger.http((ctx, millis) -> {
                AccessLog.log(ctx, ctx.res().getStatus(), millis, accessLog);
                metrics.http().request(ctx.method().name(), route(ctx), ctx.res().getStatus(),
                        java.time.Duration.ofNanos((long) (millis * 1_000_000)));
            });
            c.routes.before(ids::assign);
            for (String prefix : new String[] {"/v1", ""}) {
                c.routes.post(prefix + "/chat/completions", chat::handle);
                c.routes.post(prefix + "/completions", completions::handle);
                c.routes.get(prefix + "/models", models::list);
                c.routes.get(prefix + "/models/{id}", models::get);
                c.routes.post(prefix + "/models/{id}/load", models::load);
                c.routes.post(prefix + "/models/{id}/unload", models::unload);
            }
            c.routes.get("/api/version", ollama::version);
            c.routes.get("/api/tags", ollama::tags);
            c.routes.get("/api/ps", ollama::ps);
            c.routes.post("/api/show", ollama::show);
            c.routes.post("/api/chat", ollama::chat);
            c.routes.post("/api/generate", ollama::generate);
            c.routes.post("/v1/messages", anthropic::messages);
            if (metrics.enabled()) {
                c.routes.get("/metrics", ctx -> {
                    Metrics.Scrape scrape = metrics.scrape(ctx.header("Accept"));
                    ctx.contentType(scrape.contentType()).result(scrape.body());
                });
            }
            c.routes.get("/health", health::handle);
            c.routes.get("/v1/health", health::handle);
            c.routes.exception(ApiException.class, (e, ctx) -> error(ctx, e));
            c.routes.exception(Exception.class, (e, ctx) -> {
                LOG.error("request failed: {} {}", ctx.method(), AccessLog.escape(ctx.path()), e);
                error(ctx, ApiException.internal("internal_error", "internal server error: " + e));
            });
            c.routes.error(404, notFound());
            c.routes.error(405, ctx -> error(ctx, new ApiException(405, "invalid_request_error",
                    "method_not_allowed", null, ctx.method() + " is not allowed on " + ctx.path(),
                    java.util.Map.of(), null)));
        });
    }

    /** The matched route pattern (bounded, unlike the path), for metrics. */
    private static String route(Context ctx) {
        try {
            var endpoint = ctx.endpoint();
            // a request no route matched ends at the before-handler, "*"
            return endpoint == null || endpoint.path.isEmpty() || endpoint.path.equals("*") ? HttpMetrics.UNMATCHED
                    : endpoint.path;
        } catch (RuntimeException e) {
            return HttpMetrics.UNMATCHED;
        }
    }

    private Handler notFound() {
        return ctx -> {
            if (ctx.attribute(ErrorBodies.WRITTEN) == null) {
                error(ctx, new ApiException(404, "invalid_request_error", "not_found", null,
                        "no route " + ctx.method() + " " + ctx.path(), java.util.Map.of(), null));
            }
        };
    }

    private void error(Context ctx, ApiException e) {
        ErrorBodies.write(ctx, e, x -> mapper.writeValueAsBytes(ResponseJson.error(mapper, x)));
    }

    public HttpServer start(String host, int port) {
        app.start(host, port);
        return this;
    }

    public int port() {
        return app.port();
    }

    @Override
    public void close() {
        app.stop();
    }
}
