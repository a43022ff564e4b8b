package io.rkllm.server.http.openai;

import com.fasterxml.jackson.core.JsonEncoding;
import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.io.JsonStringEncoder;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.rkllm.server.http.LogprobsJson;
import io.rkllm.server.http.TextOffsets;
import io.rkllm.server.http.TimingsJson;
import io.rkllm.server.pipeline.Usage;
import io.rkllm.server.pipeline.output.OutputEvent;
import io.rkllm.server.pipeline.output.TokenProbability;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Encodes the streaming chunks of one response as complete SSE events ({@code data: <json>\n\n}),
 * compact single-line JSON, with the same id, created and model in every chunk.
 */
final class ChunkEncoder {
    private static final ObjectMapper MAPPER = new ObjectMapper();
    private static final JsonFactory JSON = MAPPER.getFactory();
    private static final byte[] PREFIX = "data: ".getBytes();
    private static final byte[] SUFFIX = "\n\n".getBytes();
    /** Stands for the text in a chunk encoded once: no JSON escape changes it, and no header holds it. */
    private static final String MARK = "\u0000mark\u0000";
    private static final JsonStringEncoder ESCAPES = JsonStringEncoder.getInstance();
    private static final byte[] MARK_BYTES = ESCAPES.quoteAsUTF8(MARK);

    private final String id;
    private final long created;
    private final String model;
    private final boolean legacy;
    private final ByteArrayOutputStream buffer = new ByteArrayOutputStream(256);
    /** How much of each streamed call's arguments was sent, by the call's index. */
    private final Map<Integer, Integer> argumentsSent = new HashMap<>();
    private Framed contentChunk;
    private Framed reasoningChunk;
    /** Where the legacy chunks' tokens start in the answer: counted on from chunk to chunk. */
    private final TextOffsets textOffsets = new TextOffsets();

    ChunkEncoder(String id, long created, String model, boolean legacy) {
        this.id = id;
        this.created = created;
        this.model = model;
        this.legacy = legacy;
    }

    byte[] role() {
        return chunk(g -> {
            g.writeStringField("role", "assistant");
            g.writeStringField("content", "");
        }, null, List.of());
    }

    byte[] content(String text, List<TokenProbability> logprobs) {
        if (!logprobs.isEmpty()) {
            return chunk(g -> g.writeStringField("content", text), null, logprobs);
        }
        if (contentChunk == null) {
            contentChunk = Framed.of(chunk(g -> g.writeStringField("content", MARK), null, List.of()));
        }
        return contentChunk.with(text);
    }

    byte[] reasoning(String text, List<TokenProbability> logprobs) {
        if (!logprobs.isEmpty()) {
            return chunk(g -> g.writeStringField("reasoning_content", text), null, logprobs);
        }
        if (reasoningChunk == null) {
            reasoningChunk = Framed.of(chunk(g -> g.writeStringField("reasoning_content", MARK), null, List.of()));
        }
        return reasoningChunk.with(text);
    }

    /**
     * A chunk whose one string changes from token to token: the bytes around the string encoded once, the string
     * escaped as the generator escapes it (a token's chunk costs an escape and a copy instead of a generator).
     */
    private record Framed(byte[] before, byte[] after) {
        static Framed of(byte[] encoded) {
            int at = indexOf(encoded, MARK_BYTES);
            return new Framed(Arrays.copyOfRange(encoded, 0, at),
                    Arrays.copyOfRange(encoded, at + MARK_BYTES.length, encoded.length));
        }

        byte[] with(String text) {
            byte[] escaped = ESCAPES.quoteAsUTF8(text);
            byte[] out = new byte[before.length + escaped.length + after.length];
            System.arraycopy(before, 0, out, 0, before.length);
            System.arraycopy(escaped, 0, out, before.length, escaped.length);
            System.arraycopy(after, 0, out, before.length + escaped.length, after.length);
            return out;
        }

        private static int indexOf(byte[] bytes, byte[] part) {
            for (int i = 0; i + part.length <= bytes.length; i++) {
                if (Arrays.equals(bytes, i, i + part.length, part, 0, part.length)) {
                    return i;
                }
            }
            throw new IllegalStateException("the chunk lost its mark");
        }
    }

    /**
     * A tool call not streamed before: two deltas, the first with id, type and name, the second with the
     * arguments. One streamed before ({@link #callDelta}): what is left of its arguments, if anything (the
     * {@code logprobs} in an empty piece then).
     */
    byte[][] toolCall(OutputEvent.ToolCall call, List<TokenProbability> logprobs) {
        Integer sent = argumentsSent.remove(call.index());
        if (sent != null) {
            String rest = call.argumentsJson().substring(sent);
            return rest.isEmpty() && logprobs.isEmpty() ? new byte[0][]
                    : new byte[][] {arguments(call.index(), rest, logprobs)};
        }
        return new byte[][] {head(call.index(), call.id(), call.name()),
            arguments(call.index(), call.argumentsJson(), logprobs)};
    }

    /** A piece of a call under way, as OpenAI streams one: its head first, then pieces of its arguments. */
    byte[][] callDelta(OutputEvent.CallDelta delta, List<TokenProbability> logprobs) {
        Integer sent = argumentsSent.put(delta.index(), argumentsSent.getOrDefault(delta.index(), 0)
                + delta.arguments().length());
        byte[] piece = arguments(delta.index(), delta.arguments(), logprobs);
        return sent == null ? new byte[][] {head(delta.index(), delta.id(), delta.name()), piece}
                : new byte[][] {piece};
    }

    private byte[] head(int index, String callId, String name) {
        return chunk(g -> {
            g.writeArrayFieldStart("tool_calls");
            g.writeStartObject();
            g.writeNumberField("index", index);
            g.writeStringField("id", callId);
            g.writeStringField("type", "function");
            g.writeObjectFieldStart("function");
            g.writeStringField("name", name);
            g.writeStringField("arguments", "");
            g.writeEndObject();
            g.writeEndObject();
            g.writeEndArray();
        }, null, List.of());
    }

    private byte[] arguments(int index, String text, List<TokenProbability> logprobs) {
        return chunk(g -> {
            g.writeArrayFieldStart("tool_calls");
            g.writeStartObject();
            g.writeNumberField("index", index);
            g.writeObjectFieldStart("function");
            g.writeStringField("arguments", text);
            g.writeEndObject();
            g.writeEndObject();
            g.writeEndArray();
        }, null, logprobs);
    }

    byte[] finish(String reason) {
        return chunk(g -> { }, reason, List.of());
    }

    byte[] usage(Usage usage) {
        return event(g -> {
            header(g);
            g.writeArrayFieldStart("choices");
            g.writeEndArray();
            g.writeFieldName("usage");
            g.writeTree(ResponseJson.usage(MAPPER, usage));
            g.writeFieldName("timings");
            g.writeTree(TimingsJson.of(MAPPER, usage));
        });
    }

    private byte[] chunk(Body delta, String finishReason, List<TokenProbability> logprobs) {
        return event(g -> {
            header(g);
            g.writeArrayFieldStart("choices");
            g.writeStartObject();
            g.writeNumberField("index", 0);
            g.writeObjectFieldStart("delta");
            delta.write(g);
            g.writeEndObject();
            if (logprobs.isEmpty()) {
                g.writeNullField("logprobs");
            } else {
                g.writeFieldName("logprobs");
                g.writeTree(LogprobsJson.chat(logprobs));
            }
            writeFinishReason(g, finishReason);
            g.writeEndObject();
            g.writeEndArray();
        });
    }

    /**
     * A legacy {@code text_completion} chunk: plain text instead of a delta, its tokens' log probabilities in the
     * legacy columns (their offsets counted on from the chunks before).
     */
    byte[] text(String text, String finishReason, List<TokenProbability> logprobs) {
        return event(g -> {
            header(g);
            g.writeArrayFieldStart("choices");
            g.writeStartObject();
            g.writeNumberField("index", 0);
            g.writeStringField("text", text);
            if (logprobs.isEmpty()) {
                g.writeNullField("logprobs");
            } else {
                g.writeFieldName("logprobs");
                g.writeTree(LogprobsJson.legacy(logprobs, textOffsets));
            }
            writeFinishReason(g, finishReason);
            g.writeEndObject();
            g.writeEndArray();
        });
    }

    /** Written out as null while the answer goes on: clients need the field in every chunk. */
    private static void writeFinishReason(JsonGenerator g, String reason) throws IOException {
        if (reason == null) {
            g.writeNullField("finish_reason");
        } else {
            g.writeStringField("finish_reason", reason);
        }
    }

    private void header(JsonGenerator g) throws IOException {
        g.writeStringField("id", id);
        g.writeStringField("object", legacy ? "text_completion" : "chat.completion.chunk");
        g.writeNumberField("created", created);
        g.writeStringField("model", model);
        g.writeStringField("system_fingerprint", ResponseJson.FINGERPRINT);
    }

    private byte[] event(Body body) {
        buffer.reset();
        try {
            buffer.write(PREFIX);
            try (JsonGenerator g = JSON.createGenerator(buffer, JsonEncoding.UTF8)) {
                g.disable(JsonGenerator.Feature.AUTO_CLOSE_TARGET);
                g.writeStartObject();
                body.write(g);
                g.writeEndObject();
            }
            buffer.write(SUFFIX);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return buffer.toByteArray();
    }

    @FunctionalInterface
    interface Body {
        void write(JsonGenerator g) throws IOException;
    }
}
