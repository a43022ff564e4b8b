package io.rkllm.server.http;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.rkllm.server.api.ApiException;

/** How one API writes an error body: the same {@link ApiException} becomes each API's own JSON. */
@FunctionalInterface
public interface ErrorShape {
    ObjectNode body(ApiException e);
}
