package io.rkllm.server.http.llamacpp;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.rkllm.server.http.TimingsJson;
import io.rkllm.server.pipeline.Usage;
import java.util.Optional;

/**
 * llama-server's own completion objects: a streamed piece ({@code content}, {@code stop: false}) and the last object,
 * the whole answer's or the stream's end ({@code stop: true}, why it stopped, the token counts, {@code timings}).
 */
final class NativeCompletionJson {
    private NativeCompletionJson() {
    }

    static ObjectNode piece(ObjectMapper mapper, String text) {
        ObjectNode piece = mapper.createObjectNode();
        piece.put("content", text);
        piece.put("stop", false);
        return piece;
    }

    /**
     * What the answer was made with, as llama-server's {@code generation_settings} tells it (llama.vscode's status
     * line reads {@code n_ctx} from it).
     *
     * @param nPredict the answer's limit as llama-server writes it: -1 for none, 0 for a warm-up
     */
    record Settings(String model, int contextLength, int nPredict) {
    }

    /**
     * @param content the whole answer, or "" at a stream's end
     * @param finishReason OpenAI's: {@code stop} (an end token or a stop string), {@code length}
     * @param matchedStop the stop string that ended it, when it is known
     */
    static ObjectNode last(ObjectMapper mapper, Settings settings, String content, String finishReason,
                           Optional<String> matchedStop, Usage usage) {
        ObjectNode last = mapper.createObjectNode();
        last.put("content", content);
        last.put("stop", true);
        last.put("model", settings.model());
        last.put("tokens_predicted", usage.completionTokens());
        last.put("tokens_evaluated", usage.promptTokens());
        last.put("tokens_cached", usage.cachedTokens());
        last.put("truncated", false);
        last.put("stop_type", finishReason.equals("length") ? "limit" : matchedStop.isPresent() ? "word" : "eos");
        last.put("stopping_word", matchedStop.orElse(""));
        last.set("timings", TimingsJson.of(mapper, usage));
        ObjectNode generation = last.putObject("generation_settings");
        generation.put("n_ctx", settings.contextLength());
        generation.put("n_predict", settings.nPredict());
        generation.put("model", settings.model());
        return last;
    }
}
