package io.rkllm.server.http.responses;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.rkllm.server.pipeline.request.ChatMessage;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The Responses API's stored responses, for {@code previous_response_id}, {@code item_reference} input items and
 * {@code GET /v1/responses/{id}}: the
 * newest {@code capacity} responses ({@code limits.stored_responses}), in memory only, the least recently used
 * dropped first. A conversation of a few turns needs only its latest response; a server restart forgets them all.
 */
final class ResponseStore {
    /**
     * One stored response.
     *
     * @param conversation the messages a follow-up continues: the earlier conversation, this request's input and
     *                     the answer (without the request's instructions, which a follow-up does not inherit)
     * @param response the response object as it was sent
     */
    record Stored(List<ChatMessage> conversation, ObjectNode response) {
        Stored {
            conversation = List.copyOf(conversation);
        }
    }

    private final int capacity;
    private final Map<String, Stored> responses;

    ResponseStore(int capacity) {
        this.capacity = capacity;
        this.responses = new LinkedHashMap<>(16, 0.75f, true) {
            @Override
            protected boolean removeEldestEntry(Map.Entry<String, Stored> eldest) {
                return size() > ResponseStore.this.capacity;
            }
        };
    }

    synchronized void put(String id, Stored stored) {
        if (capacity > 0) {
            responses.put(id, stored);
        }
    }

    synchronized Optional<Stored> get(String id) {
        return Optional.ofNullable(responses.get(id));
    }

    /** The output item {@code id} of a stored response (for {@code item_reference} input items). */
    synchronized Optional<JsonNode> item(String id) {
        for (Stored stored : responses.values()) {
            for (JsonNode item : stored.response().path("output")) {
                if (item.path("id").asText().equals(id)) {
                    return Optional.of(item);
                }
            }
        }
        return Optional.empty();
    }

    synchronized boolean remove(String id) {
        return responses.remove(id) != null;
    }
}
