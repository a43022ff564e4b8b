package io.rkllm.server.http;

import io.javalin.http.Handler;
import io.javalin.http.HandlerType;

/** One route of an {@link ApiFamily}: a method, a path pattern (Javalin's), its handler. */
public record Route(HandlerType method, String path, Handler handler) {
    public static Route get(String path, Handler handler) {
        return new Route(HandlerType.GET, path, handler);
    }

    public static Route post(String path, Handler handler) {
        return new Route(HandlerType.POST, path, handler);
    }

    public static Route delete(String path, Handler handler) {
        return new Route(HandlerType.DELETE, path, handler);
    }

    public static Route head(String path, Handler handler) {
        return new Route(HandlerType.HEAD, path, handler);
    }
}
