package io.rkllm.server.http.responses;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.rkllm.server.http.ApiFamily;
import io.rkllm.server.http.ErrorShape;
import io.rkllm.server.http.HttpServices;
import io.rkllm.server.http.OpenAiErrorShape;
import io.rkllm.server.http.Route;
import java.util.ArrayList;
import java.util.List;

/** OpenAI's Responses API: create, retrieve and delete, with a bounded in-memory store; OpenAI's error shape. */
public final class ResponsesFamily implements ApiFamily {
    private final List<Route> routes = new ArrayList<>();
    private final ErrorShape errors;

    public ResponsesFamily(HttpServices s) {
        OpenAiErrorShape openAi = new OpenAiErrorShape(s.mapper());
        // the conversation is the request's 'input' here, where the pipeline names it 'messages'
        errors = e -> {
            ObjectNode body = openAi.body(e);
            ObjectNode error = (ObjectNode) body.get("error");
            if ("messages".equals(error.path("param").asText(null))) {
                error.put("param", "input");
            }
            return body;
        };
        var handler = new ResponsesHandler(s.driver(), new ResponsesRequestParser(s.fields(), s.limits()),
                new ResponseStore(s.config().limits().storedResponses()), s.mapper());
        for (String prefix : new String[] {"/v1", ""}) {
            routes.add(Route.post(prefix + "/responses", handler::create));
            routes.add(Route.get(prefix + "/responses/{id}", handler::get));
            routes.add(Route.delete(prefix + "/responses/{id}", handler::delete));
        }
    }

    @Override
    public List<Route> routes() {
        return List.copyOf(routes);
    }

    @Override
    public boolean owns(String path) {
        return path.startsWith("/v1/responses") || path.startsWith("/responses");
    }

    @Override
    public ErrorShape errors() {
        return errors;
    }
}
