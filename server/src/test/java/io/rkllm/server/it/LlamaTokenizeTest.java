package io.rkllm.server.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.rkllm.llama.gguf.TinyLlama;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * llama-server's {@code /tokenize} and {@code /detokenize} with a GGUF model's own tokenizer (the tiny models'
 * byte-level one: a character outside ASCII is several tokens, each piece a part of it), which editors and
 * SillyTavern count tokens with: the counts the completion routes report, texts and ids back and forth, its options.
 * That it answers beside a running generation: {@code SharedTokenizerTest}.
 */
class LlamaTokenizeTest {
    private static final String TEXT = "Hé, the board's NPU 🙂 runs it.";

    @TempDir
    static Path dir;
    static LlamaTestServer server;

    @BeforeAll
    static void start() {
        server = LlamaTestServer.in(dir).model("tiny", TinyLlama.Options.chat())
                .model("bos", TinyLlama.Options.chat().withBos())
                .model("coder", TinyLlama.Options.chat().withControls(List.of("<|fim_prefix|>", "<|fim_suffix|>",
                        "<|fim_middle|>")))
                .start();
    }

    @AfterAll
    static void stop() {
        server.close();
    }

    private static List<Integer> tokens(String body) throws Exception {
        List<Integer> ids = new ArrayList<>();
        LlamaChatTest.ok(server.post("/tokenize", body)).get("tokens").forEach(t -> ids.add(t.intValue()));
        return ids;
    }

    private static String text(String json) {
        return TestServer.JSON.valueToTree(json).toString();
    }

    @Test
    void aTextsTokensAreTheOnesTheCompletionReads() throws Exception {
        List<Integer> ids = tokens("{\"model\":\"tiny\",\"content\":" + text(TEXT) + ",\"add_special\":true}");
        JsonNode answer = LlamaChatTest.ok(server.post("/v1/completions", "{\"model\":\"tiny\",\"max_tokens\":1,"
                + "\"prompt\":" + text(TEXT) + "}"));
        assertThat(ids).hasSize(answer.at("/usage/prompt_tokens").asInt());
        // and back: the same text
        JsonNode back = LlamaChatTest.ok(server.post("/detokenize", "{\"model\":\"tiny\",\"tokens\":" + ids + "}"));
        assertThat(back.get("content").asText()).isEqualTo(TEXT);
        assertThat(back.size()).isEqualTo(1);
    }

    @Test
    void aTokenizerThatOpensTextsWithItsBosDoesSoWhenAsked() throws Exception {
        List<Integer> plain = tokens("{\"model\":\"bos\",\"content\":" + text(TEXT) + "}");
        List<Integer> opened = tokens("{\"model\":\"bos\",\"content\":" + text(TEXT) + ",\"add_special\":true}");
        assertThat(opened).hasSize(plain.size() + 1).endsWith(plain.toArray(Integer[]::new));
        int bos = opened.getFirst();
        JsonNode answer = LlamaChatTest.ok(server.post("/v1/completions", "{\"model\":\"bos\",\"max_tokens\":1,"
                + "\"prompt\":" + text(TEXT) + "}"));
        assertThat(opened).hasSize(answer.at("/usage/prompt_tokens").asInt());
        // in a mixed content, before a first text only (llama-server's rule)
        List<Integer> ab = tokens("{\"model\":\"bos\",\"content\":\"ab\"}");
        List<Integer> mixed = tokens("{\"model\":\"bos\",\"content\":[\"ab\",\"ab\"],\"add_special\":true}");
        List<Integer> expected = new ArrayList<>(List.of(bos));
        expected.addAll(ab);
        expected.addAll(ab);
        assertThat(mixed).isEqualTo(expected);
        List<Integer> idFirst = tokens("{\"model\":\"bos\",\"content\":[5,\"ab\"],\"add_special\":true}");
        expected = new ArrayList<>(List.of(5));
        expected.addAll(ab);
        assertThat(idFirst).isEqualTo(expected);
        // the BOS reads back as its text
        assertThat(LlamaChatTest.ok(server.post("/detokenize", "{\"model\":\"bos\",\"tokens\":[" + bos + "]}"))
                .get("content").asText()).isEqualTo("<|endoftext|>");
    }

    @Test
    void piecesAreTextsWhenWholeAndBytesWhenPartOfACharacter() throws Exception {
        JsonNode answer = LlamaChatTest.ok(server.post("/tokenize", "{\"model\":\"tiny\",\"content\":\"Hé ok\","
                + "\"with_pieces\":true}"));
        // "é" is two bytes, 0xC3 0xA9: two tokens whose pieces are no text alone
        assertThat(answer.get("tokens").toString()).isEqualTo("[{\"id\":72,\"piece\":\"H\"},{\"id\":195,\"piece\":"
                + "[195]},{\"id\":169,\"piece\":[169]},{\"id\":261,\"piece\":\" o\"},{\"id\":107,\"piece\":\"k\"}]");
        ByteArrayOutputStream joined = new ByteArrayOutputStream();
        JsonNode all = LlamaChatTest.ok(server.post("/tokenize", "{\"model\":\"tiny\",\"content\":" + text(TEXT)
                + ",\"with_pieces\":true}")).get("tokens");
        for (JsonNode token : all) {
            JsonNode piece = token.get("piece");
            if (piece.isTextual()) {
                joined.writeBytes(piece.asText().getBytes(StandardCharsets.UTF_8));
            } else {
                piece.forEach(b -> joined.write(b.intValue()));
            }
        }
        assertThat(joined.toString(StandardCharsets.UTF_8)).isEqualTo(TEXT);
        assertThat(all).hasSize(tokens("{\"model\":\"tiny\",\"content\":" + text(TEXT) + "}").size());
    }

    @Test
    void specialTokensTextsAreThoseTokensUnlessAskedNotTo() throws Exception {
        List<Integer> parsed = tokens("{\"model\":\"coder\",\"content\":\"a<|fim_prefix|>b\"}");
        List<Integer> plain = tokens("{\"model\":\"coder\",\"content\":\"a<|fim_prefix|>b\",\"parse_special\":false}");
        assertThat(parsed).hasSize(3);
        assertThat(plain.size()).isGreaterThan(3);
        // both read back as the text: a special token's piece is its text
        for (List<Integer> ids : List.of(parsed, plain)) {
            assertThat(LlamaChatTest.ok(server.post("/detokenize", "{\"model\":\"coder\",\"tokens\":" + ids + "}"))
                    .get("content").asText()).isEqualTo("a<|fim_prefix|>b");
        }
    }

    @Test
    void withoutAModelTheLoadedOneUsedLastAnswers() throws Exception {
        // an editor's plugin names no model: the one it has been using; the coder reads its marker as one token
        String body = "{\"content\":\"a<|fim_prefix|>b\"}";
        LlamaChatTest.ok(server.post("/v1/completions", "{\"model\":\"coder\",\"max_tokens\":1,\"prompt\":\"x\"}"));
        assertThat(tokens(body)).hasSize(3);
        LlamaChatTest.ok(server.post("/v1/completions", "{\"model\":\"tiny\",\"max_tokens\":1,\"prompt\":\"x\"}"));
        assertThat(tokens(body)).hasSizeGreaterThan(3);
    }

    @Test
    void aMixedContentKeepsItsTokenIds() throws Exception {
        List<Integer> ab = tokens("{\"model\":\"tiny\",\"content\":\"ab\"}");
        List<Integer> cd = tokens("{\"model\":\"tiny\",\"content\":\"cd\"}");
        List<Integer> expected = new ArrayList<>(ab);
        expected.add(5);
        expected.addAll(cd);
        assertThat(tokens("{\"model\":\"tiny\",\"content\":[\"ab\",5,\"cd\"]}")).isEqualTo(expected);
    }

    @Test
    void nothingToReadIsNothing() throws Exception {
        assertThat(server.post("/tokenize", "{\"model\":\"tiny\"}").body()).isEqualTo("{\"tokens\":[]}");
        assertThat(server.post("/tokenize", "{\"model\":\"tiny\",\"content\":\"\"}").body())
                .isEqualTo("{\"tokens\":[]}");
        assertThat(server.post("/detokenize", "{\"model\":\"tiny\",\"tokens\":[]}").body())
                .isEqualTo("{\"content\":\"\"}");
    }

    @Test
    void mistakesAreClearFourHundreds() throws Exception {
        TestServer.Reply outside = server.post("/detokenize", "{\"model\":\"tiny\",\"tokens\":[72,400]}");
        assertThat(outside.status()).isEqualTo(400);
        assertThat(outside.json().at("/error/param").asText()).isEqualTo("tokens");
        assertThat(outside.json().at("/error/message").asText()).isEqualTo("token 400 is not in the model's"
                + " vocabulary, whose ids run from 0 to 347");
        TestServer.Reply negative = server.post("/tokenize", "{\"model\":\"tiny\",\"content\":[\"a\",-1]}");
        assertThat(negative.status()).isEqualTo(400);
        assertThat(negative.json().at("/error/param").asText()).isEqualTo("content");
        TestServer.Reply shape = server.post("/tokenize", "{\"model\":\"tiny\",\"content\":{\"text\":\"a\"}}");
        assertThat(shape.status()).isEqualTo(400);
        assertThat(shape.json().at("/error/message").asText()).contains("must be a text, or an array");
        assertThat(server.post("/detokenize", "{\"model\":\"tiny\",\"tokens\":[\"a\"]}").status()).isEqualTo(400);
        // a quarter of a million tokens at most, either way (what a 256 MB heap holds with every piece)
        TestServer.Reply huge = server.post("/tokenize", "{\"model\":\"tiny\",\"with_pieces\":true,\"content\":\""
                + "x ".repeat(300_000) + "\"}");
        assertThat(huge.status()).isEqualTo(400);
        assertThat(huge.json().at("/error/message").asText()).isEqualTo("a request tokenizes at most 262144 tokens,"
                + " and 'content' is longer than that: send it in parts");
        TestServer.Reply many = server.post("/detokenize", "{\"model\":\"tiny\",\"tokens\":["
                + "72,".repeat(262_144) + "72]}");
        assertThat(many.status()).isEqualTo(400);
        assertThat(many.json().at("/error/param").asText()).isEqualTo("tokens");
        TestServer.Reply unknown = server.post("/tokenize", "{\"model\":\"nope\",\"content\":\"a\"}");
        assertThat(unknown.status()).isEqualTo(404);
        assertThat(unknown.json().at("/error/message").asText()).contains("nope");
    }
}
