package io.rkllm.server.http;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.rkllm.server.pipeline.output.TokenProbability;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.StandardCharsets;
import java.util.HexFormat;
import java.util.List;

/**
 * Tokens' log probabilities as the APIs write them: OpenAI's chat {@code logprobs.content} entries and Ollama's
 * {@code logprobs} (the same entries: {@code token}, {@code logprob}, {@code bytes}, {@code top_logprobs}), and the
 * legacy completions' columns ({@code tokens}, {@code token_logprobs}, {@code top_logprobs}, {@code text_offset}).
 */
public final class LogprobsJson {
    /** What OpenAI writes for a probability too small to have a logarithm here (JSON has no -Infinity). */
    static final double FLOOR = -9999.0;
    private static final JsonNodeFactory NODES = JsonNodeFactory.instance;

    private LogprobsJson() {
    }

    /**
     * One entry a token, its alternatives in {@code top_logprobs}: always there (OpenAI's shape), or only when
     * asked for ({@code emptyTopOmitted}: Ollama leaves out an empty list).
     */
    public static ArrayNode entries(List<TokenProbability> tokens, boolean emptyTopOmitted) {
        ArrayNode out = NODES.arrayNode(tokens.size());
        for (TokenProbability t : tokens) {
            ObjectNode entry = entry(out.addObject(), t);
            if (!t.top().isEmpty() || !emptyTopOmitted) {
                ArrayNode top = entry.putArray("top_logprobs");
                for (TokenProbability alternative : t.top()) {
                    entry(top.addObject(), alternative);
                }
            }
        }
        return out;
    }

    /** OpenAI's chat {@code logprobs} object: {@code content} and a {@code refusal} that is never there. */
    public static ObjectNode chat(List<TokenProbability> tokens) {
        ObjectNode logprobs = NODES.objectNode();
        logprobs.set("content", entries(tokens, false));
        logprobs.putNull("refusal");
        return logprobs;
    }

    /**
     * The legacy completions' {@code logprobs} object. A token that is not whole UTF-8 (a piece of a character) is
     * written as OpenAI writes it, {@code bytes:\xe2\x82}; {@code text_offset} is where each token's text starts in
     * the answer, in characters.
     *
     * @param offsets the answer's offsets, counted on from the chunks before these
     */
    public static ObjectNode legacy(List<TokenProbability> tokens, TextOffsets offsets) {
        ObjectNode logprobs = NODES.objectNode();
        ArrayNode texts = logprobs.putArray("tokens");
        ArrayNode values = logprobs.putArray("token_logprobs");
        ArrayNode tops = logprobs.putArray("top_logprobs");
        ArrayNode starts = logprobs.putArray("text_offset");
        for (TokenProbability t : tokens) {
            texts.add(legacyText(t.bytes()));
            values.add(value(t.logprob()));
            ObjectNode top = tops.addObject();
            for (TokenProbability alternative : t.top()) {
                top.put(legacyText(alternative.bytes()), value(alternative.logprob()));
            }
            starts.add(offsets.next(t.bytes()));
        }
        return logprobs;
    }

    private static String legacyText(byte[] bytes) {
        CharsetDecoder strict = StandardCharsets.UTF_8.newDecoder();
        try {
            return strict.decode(ByteBuffer.wrap(bytes)).toString();
        } catch (CharacterCodingException e) {
            StringBuilder s = new StringBuilder("bytes:");
            for (byte b : bytes) {
                s.append("\\x").append(HexFormat.of().toHexDigits(b));
            }
            return s.toString();
        }
    }

    private static ObjectNode entry(ObjectNode entry, TokenProbability t) {
        entry.put("token", t.token());
        entry.put("logprob", value(t.logprob()));
        ArrayNode bytes = entry.putArray("bytes");
        for (byte b : t.bytes()) {
            bytes.add(b & 0xFF);
        }
        return entry;
    }

    private static double value(double logprob) {
        return Double.isFinite(logprob) ? logprob : FLOOR;
    }
}
