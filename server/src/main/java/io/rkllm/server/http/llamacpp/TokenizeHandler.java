package io.rkllm.server.http.llamacpp;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.javalin.http.Context;
import io.rkllm.server.api.ApiException;
import io.rkllm.server.api.CommonFields;
import io.rkllm.server.api.FieldReader;
import io.rkllm.server.pipeline.ModelTokens;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
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
        ModelTokens.Tokens tokens = parts.isEmpty() ? new ModelTokens.Tokens(new int[0], List.of())
                : this.tokens.tokenize(common.model(f), parts, addSpecial, parseSpecial, withPieces);
        // written as it goes: a tree of a quarter of a million tokens would take a small heap's worth
        ByteArrayOutputStream out = new ByteArrayOutputStream(tokens.ids().length * (withPieces ? 24 : 7) + 16);
        try (JsonGenerator json = mapper.getFactory().createGenerator(out)) {
            json.writeStartObject();
            json.writeArrayFieldStart("tokens");
            for (int i = 0; i < tokens.ids().length; i++) {
                if (withPieces) {
                    json.writeStartObject();
                    json.writeNumberField("id", tokens.ids()[i]);
                    json.writeFieldName("piece");
                    piece(json, tokens.pieces().get(i));
                    json.writeEndObject();
                } else {
                    json.writeNumber(tokens.ids()[i]);
                }
            }
            json.writeEndArray();
            json.writeEndObject();
        }
        ctx.status(200).contentType("application/json").result(out.toByteArray());
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
    private static void piece(JsonGenerator json, byte[] bytes) throws IOException {
        try {
            json.writeString(StandardCharsets.UTF_8.newDecoder().decode(ByteBuffer.wrap(bytes)).toString());
        } catch (CharacterCodingException e) {
            json.writeStartArray();
            for (byte b : bytes) {
                json.writeNumber(b & 0xFF);
            }
            json.writeEndArray();
        }
    }
}
