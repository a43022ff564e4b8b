package io.rkllm.server.http.llamacpp;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import io.rkllm.server.api.ApiException;
import io.rkllm.server.api.CommonFields;
import io.rkllm.server.api.FieldReader;
import io.rkllm.server.api.LogitBiasField;
import io.rkllm.server.api.Schemas;
import io.rkllm.server.pipeline.request.ChatRequest;
import io.rkllm.server.pipeline.request.EditorStops;
import io.rkllm.server.pipeline.request.FileChunk;
import io.rkllm.server.pipeline.request.OutputFormat;
import io.rkllm.server.pipeline.request.RawPrompt;
import io.rkllm.server.pipeline.request.Thinking;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;

/**
 * llama-server's own {@code /completion} and {@code /infill} bodies: a raw prompt (or a prefix and a suffix to fill in
 * between), {@code n_predict}, the sampling fields, {@code stop}, {@code stream}, {@code json_schema}. What its clients
 * send besides that and this server does anyway or leaves to the model is accepted ({@code cache_prompt}: prompts
 * are cached anyway; {@code samplers}: see docs/api.md); {@code n_indent} and {@code t_max_predict_ms} end an
 * editor's completion as llama-server ends it; what would change the answer and cannot be done is refused.
 */
final class NativeCompletionParser {
    private final CommonFields common;

    NativeCompletionParser(CommonFields common) {
        this.common = common;
    }

    /**
     * A request to run, or none. {@code n_predict: 0} asks llama-server to read the prompt into its cache and write
     * nothing (llama.vscode sends the files it watches so, between completions, for the completions after it to find
     * them read): a warm-up, a run of one token whose answer is not given; with nothing to read, none.
     *
     * @param model the model asked for, as the answer names it
     */
    record Parsed(Optional<ChatRequest> run, String model, boolean warmUp) {
    }

    /** {@code /completion}: the prompt as the model reads it. */
    Parsed completion(byte[] body) {
        FieldReader f = new FieldReader(common.object(body));
        String prompt = prompt(f);
        if (prompt.isEmpty() && !warmUp(f)) {
            throw ApiException.invalid("prompt", "'prompt' must not be empty");
        }
        return parsed(f, prompt.isEmpty() ? Optional.empty() : Optional.of(new RawPrompt(prompt, Optional.empty())));
    }

    /**
     * {@code /infill}: {@code input_prefix} and {@code prompt} (which llama-server puts after the prefix) before the
     * gap, {@code input_suffix} after it, cut to the context as llama-server cuts them, after {@code input_extra}'s
     * chunks of other files (the first ones left out first when they do not all fit).
     */
    Parsed infill(byte[] body) {
        FieldReader f = new FieldReader(common.object(body));
        String prefix = f.string("input_prefix").orElse("") + f.string("prompt").orElse("");
        String suffix = f.string("input_suffix").orElse("");
        List<FileChunk> extra = f.array("input_extra").map(NativeCompletionParser::extra).orElse(List.of());
        if (prefix.isEmpty() && suffix.isEmpty() && extra.isEmpty()) {
            if (warmUp(f)) {
                return parsed(f, Optional.empty());
            }
            throw ApiException.invalid("input_prefix", "'input_prefix' or 'input_suffix' must hold text to fill in"
                    + " between");
        }
        return parsed(f, Optional.of(new RawPrompt(prefix, Optional.of(suffix), true, extra)));
    }

    /** The request for {@code raw}: a warm-up, or none when there is nothing to read. */
    private Parsed parsed(FieldReader f, Optional<RawPrompt> raw) {
        if (!warmUp(f)) {
            return new Parsed(raw.map(r -> request(f, r, nPredict(f), f.bool("stream").orElse(false))),
                    common.model(f), false);
        }
        return new Parsed(raw.map(r -> request(f, r, OptionalInt.of(1), false)), common.model(f), true);
    }

    private static boolean warmUp(FieldReader f) {
        return f.integer("n_predict").orElse(-1) == 0;
    }

    private static String prompt(FieldReader f) {
        JsonNode node = f.raw("prompt").orElseThrow(() -> ApiException.invalid("prompt", "'prompt' is required"));
        if (node.isTextual()) {
            return node.asText();
        }
        if (node.isArray() && node.size() == 1 && node.get(0).isTextual()) {
            return node.get(0).asText();
        }
        throw ApiException.invalid("prompt", "'prompt' must be a string (token ids and several prompts at once are"
                + " not supported here)");
    }

    /** {@code input_extra}: {@code {"filename", "text"}} objects; a file without a name is "tmp", as llama-server's. */
    private static List<FileChunk> extra(ArrayNode extra) {
        List<FileChunk> chunks = new ArrayList<>();
        for (JsonNode chunk : extra) {
            if (!chunk.isObject() || !isText(chunk.path("text")) || !isText(chunk.path("filename"))) {
                throw ApiException.invalid("input_extra", "'input_extra' must be an array of {\"filename\","
                        + " \"text\"} objects");
            }
            // one without text is written too (its file's name), as llama-server writes it
            chunks.add(new FileChunk(chunk.path("filename").asText("tmp"), chunk.path("text").asText("")));
        }
        return chunks;
    }

    private static boolean isText(JsonNode node) {
        return node.isTextual() || node.isMissingNode();
    }

    private ChatRequest request(FieldReader f, RawPrompt raw, OptionalInt maxTokens, boolean stream) {
        if (f.integer("n_probs").orElse(0) > 0) {
            throw ApiException.invalid("n_probs", "'n_probs' is not supported on /completion: /v1/completions gives"
                    + " the tokens' probabilities ('logprobs')");
        }
        if (!f.string("grammar").orElse("").isEmpty()) {
            throw ApiException.invalid("grammar", "'grammar' (GBNF) is not supported: send a 'json_schema'");
        }
        if (f.raw("multimodal_data").isPresent()) {
            throw ApiException.invalid("multimodal_data", "pictures are not supported here: send them to"
                    + " /v1/chat/completions");
        }
        if (f.bool("ignore_eos").orElse(false)) {
            throw ApiException.invalid("ignore_eos", "'ignore_eos' is not supported: the answer ends at the model's"
                    + " end token (set n_predict to bound it)");
        }
        Optional<OutputFormat> format = f.raw("json_schema").map(s -> Schemas.bare(s, "json_schema"));
        return ChatRequest.forRawPrompt(common.model(f), raw,
                new ChatRequest.Delivery(stream, false, false, warmUp(f)),
                new ChatRequest.Output(maxTokens, common.sampling(f).withLogitBias(LogitBiasField.of(f)),
                        common.stop(f), format, Thinking.off(), OptionalInt.empty(), editorStops(f)),
                CommonFields.conversationKey(f, Optional.empty()));
    }

    /** llama-server's {@code n_indent} and {@code t_max_predict_ms} (0, the default, for none). */
    private static EditorStops editorStops(FieldReader f) {
        int indent = f.integer("n_indent").orElse(0);
        int millis = f.integer("t_max_predict_ms").orElse(0);
        if (indent < 0 || millis < 0) {
            throw ApiException.invalid(indent < 0 ? "n_indent" : "t_max_predict_ms", "'" + (indent < 0 ? "n_indent"
                    : "t_max_predict_ms") + "' must not be negative");
        }
        return new EditorStops(indent, Duration.ofMillis(millis));
    }

    /** {@code n_predict} (llama-server's; -1 is no limit), else {@code max_tokens}. */
    private OptionalInt nPredict(FieldReader f) {
        Optional<Integer> value = f.integer("n_predict");
        if (value.isEmpty()) {
            return common.maxTokens(f, "max_tokens");
        }
        return value.get() < 0 ? OptionalInt.empty() : common.maxTokens(f, "n_predict");
    }
}
