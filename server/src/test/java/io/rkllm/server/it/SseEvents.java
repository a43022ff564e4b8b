package io.rkllm.server.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;

/** A raw SSE body split into events, with the contract's invariants checked byte by byte. */
record SseEvents(String raw, List<String> data, int keepAlives, List<String> comments) {

    static SseEvents parse(String raw) {
        List<String> data = new ArrayList<>();
        List<String> comments = new ArrayList<>();
        int keepAlives = 0;
        assertThat(raw).as("every event ends with a blank line").endsWith("\n\n");
        for (String event : raw.substring(0, raw.length() - 2).split("\n\n", -1)) {
            if (event.equals(": keep-alive")) {
                keepAlives++;
                continue;
            }
            if (event.startsWith(": ") && !event.contains("\n")) {
                comments.add(event.substring(2)); // other comments: notes clients skip (the output check)
                continue;
            }
            assertThat(event).as("an event is exactly one data line").startsWith("data: ").doesNotContain("\n");
            data.add(event.substring("data: ".length()));
        }
        return new SseEvents(raw, data, keepAlives, comments);
    }

    List<JsonNode> chunks() {
        List<JsonNode> out = new ArrayList<>();
        for (String d : data) {
            if (!d.equals("[DONE]")) {
                try {
                    out.add(TestServer.JSON.readTree(d));
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            }
        }
        return out;
    }

    /** Checks the invariants of a successful chat stream and returns its chunks. */
    List<JsonNode> assertValidChatStream(boolean includeUsage) {
        assertThat(raw).doesNotContain("\nevent:").doesNotContain("\nid:").doesNotContain("\nretry:")
                .doesNotStartWith("event:");
        assertThat(data.getLast()).isEqualTo("[DONE]");
        assertThat(data.stream().filter("[DONE]"::equals).count()).isEqualTo(1);
        List<JsonNode> chunks = chunks();
        JsonNode first = chunks.getFirst();
        String id = first.get("id").asText();
        long created = first.get("created").asLong();
        assertThat(first.at("/choices/0/delta/role").asText()).isEqualTo("assistant");
        int finishes = 0;
        for (int i = 0; i < chunks.size(); i++) {
            JsonNode c = chunks.get(i);
            assertThat(c.get("id").asText()).isEqualTo(id);
            assertThat(c.get("created").asLong()).isEqualTo(created);
            assertThat(c.get("object").asText()).isEqualTo("chat.completion.chunk");
            assertThat(c.get("model").asText()).isNotEmpty();
            if (i > 0) {
                assertThat(c.at("/choices/0/delta/role").isMissingNode()).as("role only in the first chunk").isTrue();
            }
            if (c.get("choices").isEmpty()) {
                assertThat(includeUsage).as("usage chunk only when asked").isTrue();
                assertThat(i).as("usage chunk right after the finish chunk").isEqualTo(chunks.size() - 1);
                assertThat(c.get("usage").isObject()).isTrue();
                continue;
            }
            JsonNode choice = c.at("/choices/0");
            assertThat(choice.has("finish_reason")).as("finish_reason written out").isTrue();
            if (!choice.get("finish_reason").isNull()) {
                finishes++;
                assertThat(choice.at("/delta/content").isMissingNode()).as("finish chunk has no content").isTrue();
            }
        }
        assertThat(finishes).isEqualTo(1);
        if (includeUsage) {
            assertThat(chunks.getLast().get("choices").isEmpty()).isTrue();
        } else {
            assertThat(chunks.stream().noneMatch(c -> c.has("usage"))).isTrue();
        }
        return chunks;
    }

    String content(List<JsonNode> chunks) {
        StringBuilder s = new StringBuilder();
        chunks.forEach(c -> s.append(c.at("/choices/0/delta/content").asText("")));
        return s.toString();
    }

    String reasoning(List<JsonNode> chunks) {
        StringBuilder s = new StringBuilder();
        chunks.forEach(c -> s.append(c.at("/choices/0/delta/reasoning_content").asText("")));
        return s.toString();
    }

    String finishReason(List<JsonNode> chunks) {
        for (JsonNode c : chunks) {
            JsonNode f = c.at("/choices/0/finish_reason");
            if (f.isTextual()) {
                return f.asText();
            }
        }
        return null;
    }
}
