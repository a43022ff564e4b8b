package io.rkllm.server.http;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.javalin.Javalin;
import io.javalin.compression.CompressionStrategy;
import io.javalin.http.Context;
import io.javalin.http.Handler;
import io.javalin.http.HandlerType;
import io.javalin.router.Endpoint;
import io.javalin.http.HttpResponseException;
import io.rkllm.server.api.ApiException;
import io.rkllm.server.api.CommonFields;
import io.rkllm.server.api.ImageSources;
import io.rkllm.server.api.Json;
import io.rkllm.server.api.RequestLimits;
import io.rkllm.server.config.ServerConfig;
import io.rkllm.server.domain.FailureException;
import io.rkllm.server.download.Puller;
import io.rkllm.server.http.webui.WebUi;
import io.rkllm.server.logging.LogText;
import io.rkllm.server.metrics.HttpMetrics;
import io.rkllm.server.metrics.Metrics;
import io.rkllm.server.pipeline.ChatPipeline;
import io.rkllm.server.pipeline.ModelService;
import io.rkllm.server.pipeline.embedding.EmbeddingPipeline;
import io.rkllm.server.security.AccessPolicy;
import io.rkllm.server.security.ApiKeys;
import io.rkllm.server.security.CorsPolicy;
import io.rkllm.server.security.PullPolicy;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;
import java.util.function.Supplier;
import org.eclipse.jetty.server.AbstractConnector;
import org.eclipse.jetty.server.Connector;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.util.component.LifeCycle;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The HTTP layer: the routes each API family declares ({@link ApiFamily}: OpenAI, Responses, Anthropic, Ollama),
 * health, metrics and Ollama's probe; request ids, access control, the access log; and one error path that writes
 * every failure in the shape of the family owning the path, OpenAI's for the rest, unknown routes included.
 */
public final class HttpServer implements AutoCloseable {
    /** The paths whose request bodies are streamed by their route, not read up front. */
    private static final String BLOBS = "/api/blobs/";
    private static final Logger LOG = LoggerFactory.getLogger(HttpServer.class);
    /**
     * The listen queue: connections whose handshake the kernel has completed and that wait for the server to accept
     * them (listen(2)'s backlog; the kernel caps it at {@code net.core.somaxconn}, 4096 by default since Linux 5.4).
     * Jetty's default is the JDK's 50, and Open WebUI's document upload opens a connection per chunk, hundreds at
     * once: on a loaded machine the acceptor falls behind and the kernel drops the handshakes beyond the queue. A
     * client whose SYN was dropped waits for its retransmission (1 s, then 3, then 7: a connect timeout); one whose
     * completing ACK was dropped believes itself connected and sends its request, and when the queue stays full a few
     * seconds the kernel gives the half-open connection up and answers the request with a reset.
     */
    static final int ACCEPT_QUEUE = 4096;

    private final Javalin app;
    private final AccessPolicy access;
    private final ObjectMapper mapper = Json.mapper();
    private final ErrorResponses errors;

    /**
     * @param downloads  the puller of {@code POST /api/pull}, when the server writes its models directory
     * @param familiesOf the API families to serve, built from the shared services (the app chooses them, so that
     *                   this core knows no family)
     */
    public HttpServer(ServerConfig config, ChatPipeline pipeline, EmbeddingPipeline embeddingPipeline,
                      ModelService modelService, Optional<Puller> downloads, Supplier<String> notReadyReason,
                      Metrics metrics, Function<HttpServices, List<ApiFamily>> familiesOf) {
        RequestIds ids = new RequestIds();
        RequestLimits limits = RequestLimits.of(config.limits());
        CommonFields fields = new CommonFields(mapper, limits,
                new ImageSources(ImageSources.Settings.of(config.limits(), config.vision())));
        ApiKeys keys = ApiKeys.load(config.security());
        var services = new HttpServices(config, pipeline, modelService,
                new RunDriver(pipeline, config.queue().keepAlive(), metrics),
                new EmbeddingDriver(embeddingPipeline, modelService, mapper, metrics), fields, limits, mapper,
                downloads, PullPolicy.of(config, keys.enabled()));
        List<ApiFamily> families = familiesOf.apply(services);
        errors = new ErrorResponses(families, new OpenAiErrorShape(mapper), mapper);
        Set<String> headers = new HashSet<>();
        families.forEach(f -> headers.addAll(f.requestHeaders()));
        WebUi webUi = new WebUi(config.server().webUi());
        access = new AccessPolicy(keys, config.security().publicModels(),
                new CorsPolicy(config.security().corsOrigins(), headers), webUi.enabled() ? WebUi.PREFIX : null);
        long maxBody = config.limits().maxBodyMb() * 1024L * 1024L;
        long idleTimeout = config.server().idleTimeout().toMillis();
        var health = new HealthHandler(modelService, mapper, notReadyReason);
        boolean accessLog = config.logging().accessLog();
        app = Javalin.create(c -> {
            c.concurrency.useVirtualThreads = true;
            c.startup.showJavalinBanner = false;
            c.http.compressionStrategy = CompressionStrategy.NONE;
            c.http.maxRequestSize = maxBody;
            c.http.prefer405over404 = true;
            c.jetty.modifyServer(LeanJetty::server);
            c.jetty.modifyServer(server -> server.setErrorHandler(new JettyErrors.Server(errors)));
            c.jetty.modifyServletContextHandler(context -> context.setErrorHandler(new JettyErrors.Context(errors)));
            c.jetty.modifyServer(server -> server.addEventListener(new LifeCycle.Listener() {
                @Override
                public void lifeCycleStarting(LifeCycle event) {
                    // before the connector binds (Javalin adds it just before starting the server)
                    for (var connector : server.getConnectors()) {
                        if (connector instanceof ServerConnector sc) {
                            sc.setAcceptQueueSize(ACCEPT_QUEUE);
                        }
                    }
                }

                @Override
                public void lifeCycleStarted(LifeCycle event) {
                    for (var connector : server.getConnectors()) {
                        if (connector instanceof ServerConnector sc) {
                            sc.setIdleTimeout(idleTimeout);
                        }
                    }
                }
            }));
            c.requestLogger.http((ctx, millis) -> {
                AccessLog.log(ctx, ctx.res().getStatus(), millis, accessLog);
                metrics.http().request(ctx.method().name(), route(ctx), ctx.res().getStatus(),
                        Duration.ofNanos((long) (millis * 1_000_000)));
            });
            c.routes.before(ids::assign);
            c.routes.before(access::before);
            // read (and bound) the body of every authorised POST up front, also on routes that ignore it, so a
            // client still sending it is not cut off by an early answer; handlers get the cached bytes. Not a blob's
            // (Ollama's upload of a model file): gigabytes, streamed to the disk by its route
            c.routes.before(ctx -> {
                if (ctx.method() == HandlerType.POST && !ctx.path().startsWith(BLOBS)) {
                    ctx.bodyAsBytes();
                }
            });
            for (ApiFamily family : families) {
                for (Route route : family.routes()) {
                    c.routes.addEndpoint(new Endpoint(route.method(), route.path(), route.handler(), Set.of()));
                }
            }
            if (metrics.enabled()) {
                c.routes.get("/metrics", ctx -> {
                    Metrics.Scrape scrape = metrics.scrape(ctx.header("Accept"));
                    ctx.contentType(scrape.contentType()).result(scrape.body());
                });
            }
            // Ollama answers its clients' "is it running" probe here (GET, and HEAD from its CLI); a browser gets
            // the chat page (docs/web-ui.md)
            c.routes.get("/", webUi::root);
            if (webUi.enabled()) {
                c.routes.get(WebUi.PREFIX + "<file>", webUi::asset);
            }
            c.routes.head("/", ctx -> ctx.contentType("text/plain; charset=utf-8"));
            c.routes.get("/health", health::handle);
            c.routes.get("/v1/health", health::handle);
            // the one error path: every failure a route throws becomes its API's error body here
            c.routes.exception(ApiException.class, (e, ctx) -> errors.write(ctx, e));
            c.routes.exception(FailureException.class, (e, ctx) -> errors.write(ctx, FailureStatus.of(e.failure())));
            c.routes.exception(HttpResponseException.class, (e, ctx) -> errors.write(ctx, javalinError(e, ctx,
                    config)));
            c.routes.exception(InterruptedException.class, (e, ctx) -> {
                Thread.currentThread().interrupt();
                errors.write(ctx, ApiException.unavailable("interrupted", "the server is shutting down", 5));
            });
            c.routes.exception(Exception.class, (e, ctx) -> {
                Optional<ApiException> unreadable = UnreadableBody.of(e);
                if (unreadable.isPresent()) {
                    LOG.debug("unreadable body: {} {}: {}", ctx.method(), LogText.escape(ctx.path()), e.toString());
                    errors.write(ctx, unreadable.get());
                    return;
                }
                LOG.error("request failed: {} {}", ctx.method(), LogText.escape(ctx.path()), e);
                errors.write(ctx, ApiException.internal("internal_error", "internal server error: " + e));
            });
            c.routes.error(404, notFound());
            c.routes.error(405, ctx -> errors.write(ctx, new ApiException(405, "invalid_request_error",
                    "method_not_allowed", null, ctx.method() + " is not allowed on " + ctx.path(),
                    Map.of(), null)));
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

    /** Javalin's own answers (a body over the limit, no route, another method) as errors of the path's API. */
    private static ApiException javalinError(HttpResponseException e, Context ctx, ServerConfig config) {
        return switch (e.getStatus()) {
            case 413 -> new ApiException(413, "invalid_request_error", "request_too_large", null,
                    "the request body is larger than " + config.limits().maxBodyMb() + " MB (limits.max_body_mb)",
                    Map.of(), null);
            case 404 -> new ApiException(404, "invalid_request_error", "not_found", null,
                    "no route " + ctx.method() + " " + ctx.path(), Map.of(), null);
            case 405 -> new ApiException(405, "invalid_request_error", "method_not_allowed", null,
                    ctx.method() + " is not allowed on " + ctx.path(), Map.of(), null);
            default -> new ApiException(e.getStatus(), e.getStatus() >= 500 ? "server_error" : "invalid_request_error",
                    e.getStatus() >= 500 ? "server_error" : "bad_request", null, e.getMessage(), Map.of(), null);
        };
    }

    private Handler notFound() {
        return ctx -> {
            if (ctx.attribute(ErrorResponses.WRITTEN) == null) {
                errors.write(ctx, new ApiException(404, "invalid_request_error", "not_found", null,
                        "no route " + ctx.method() + " " + ctx.path(), Map.of(), null));
            }
        };
    }

    public HttpServer start(String host, int port) {
        access.announce(host);
        app.start(host, port);
        return this;
    }

    public int port() {
        return app.port();
    }

    /**
     * Stops or resumes taking connections off the listen queue; the kernel goes on completing handshakes into it
     * meanwhile. For tests: a server too busy to run its acceptor.
     */
    public void accepting(boolean accepting) {
        for (Connector connector : app.jettyServer().server().getConnectors()) {
            if (connector instanceof AbstractConnector c) {
                c.setAccepting(accepting);
            }
        }
    }

    @Override
    public void close() {
        app.stop();
    }
}
