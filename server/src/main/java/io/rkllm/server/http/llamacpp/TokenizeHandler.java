package io.rkllm.server.http.llamacpp;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.javalin.http.Context;
import io.rkllm.server.api.ApiException;
import io.rkllm.server.api.CommonFields;
import io.rkllm.server.api.FieldReader;
import io.rkllm.server.pipeline.ModelTokens;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * POST /tokenize and /detokenize, llama-server's: {@code {"content": ...}} to {@code {"tokens": [...]}} (with
 * {@code with_pieces}, each token's id and piece: a text when its bytes are whole UTF-8, else the bytes), and
 * {@code {"tokens": [...]}} to {@code {"content": "..."}}, with the model's own tokenizer. {@code model} picks the
 * model, as on the completion routes.
 */
final class TokenizeHandler {
    private final ModelTokens tokens;
    private final CommonFields common;
    private final ObjectMapper mapper;

    TokenizeHandler(ModelTokens tokens, CommonFields common, ObjectMapper mapper) {
        this.tokens = tokens;
        this.common = common;
        this.mapper = mapper;
    }

    void tokenize(Context ctx) throws Exception {
        FieldReader f = new FieldReader(common.object(ctx.bodyAsBytes()));
        List<ModelTokens.Part> parts = f.raw("content").map(TokenizeHandler::parts).orElse(List.of());
        boolean addSpecial = f.bool("add_special").orElse(false);
        boolean parseSpecial = f.bool("parse_special").orElse(true);
        boolean withPieces = f.bool("with_pieces").orElse(false);
        ObjectNode root = mapper.createObjectNode();
        ArrayNode out = root.putArray("tokens");
        if (!parts.isEmpty()) {
            for (ModelTokens.Token token : tokens.tokenize(common.model(f), parts, addSpecial, parseSpecial,
                    withPieces)) {
                if (withPieces) {
                    ObjectNode entry = out.addObject().put("id", token.id());
                    piece(entry, token.piece());
                } else {
                    out.add(token.id());
                }
            }
        }
        ctx.status(200).contentType("application/json").result(mapper.writeValueAsBytes(root));
    }

    void detokenize(Context ctx) throws Exception {
        FieldReader f = new FieldReader(common.object(ctx.bodyAsBytes()));
        int[] ids = f.raw("tokens").map(TokenizeHandler::ids).orElse(new int[0]);
        String content = ids.length == 0 ? ""
                : new String(tokens.detokenize(common.model(f), ids), StandardCharsets.UTF_8);
        ctx.status(200).contentType("application/json")
                .result(mapper.writeValueAsBytes(mapper.createObjectNode().put("content", content)));
    }

    /** A text, or an array of texts and token ids (llama-server's mixed prompt). */
    private static List<ModelTokens.Part> parts(JsonNode content) {
        if (content.isTextual()) {
            return List.of(new ModelTokens.Part.Text(content.textValue()));
        }
        if (!content.isArray()) {
            throw ApiException.invalid("content", "'content' must be a text, or an array of texts and token ids");
        }
        List<ModelTokens.Part> parts = new ArrayList<>();
        for (JsonNode part : content) {
            if (part.isTextual()) {
                parts.add(new ModelTokens.Part.Text(part.textValue()));
            } else if (part.isIntegralNumber() && part.canConvertToInt()) {
                parts.add(new ModelTokens.Part.Token(part.intValue()));
            } else {
                throw ApiException.invalid("content", "'content' must be a text, or an array of texts and token ids;"
                        + " it holds " + part);
            }
        }
        return parts;
    }

    private static int[] ids(JsonNode tokens) {
        if (!tokens.isArray()) {
            throw ApiException.invalid("tokens", "'tokens' must be an array of token ids");
        }
        int[] ids = new int[tokens.size()];
        for (int i = 0; i < ids.length; i++) {
            JsonNode id = tokens.get(i);
            if (!id.isIntegralNumber() || !id.canConvertToInt()) {
                throw ApiException.invalid("tokens", "'tokens' must be an array of token ids; it holds " + id);
            }
            ids[i] = id.intValue();
        }
        return ids;
    }

    /** The piece as text when its bytes are whole UTF-8, else its bytes as numbers (as llama-server writes it). */
    private static void piece(ObjectNode entry, byte[] bytes) {
        try {
            entry.put("piece", StandardCharsets.UTF_8.newDecoder().decode(ByteBuffer.wrap(bytes)).toString());
        } catch (CharacterCodingException e) {
            ArrayNode numbers = entry.putArray("piece");
            for (byte b : bytes) {
                numbers.add(b & 0xFF);
            }
        }
    }
}
