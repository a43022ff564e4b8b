package io.rkllm.server.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.sun.net.httpserver.HttpServer;
import io.rkllm.server.api.ApiException;
import io.rkllm.server.api.CommonFields;
import io.rkllm.server.api.ImageSources;
import io.rkllm.server.api.Json;
import io.rkllm.server.api.RequestLimits;
import io.rkllm.server.http.anthropic.AnthropicRequestParser;
import io.rkllm.server.http.ollama.OllamaRequestParser;
import io.rkllm.server.http.openai.ChatRequestParser;
import io.rkllm.server.pipeline.request.ChatMessage;
import io.rkllm.server.pipeline.request.ChatRequest;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Base64;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** The picture shapes of each API reach the request as the same bytes; what is wrong is a 400 naming where. */
class ImagePartsTest {
    static final byte[] PICTURE = {(byte) 0x89, 'P', 'N', 'G', 1, 2, 3, 4};
    static final String B64 = Base64.getEncoder().encodeToString(PICTURE);

    private final CommonFields fields = new CommonFields(Json.mapper(), RequestLimits.DEFAULT);
    private final ChatRequestParser openai = new ChatRequestParser(fields);

    @Test
    void openAiImageUrlPartsInOrder() {
        ChatRequest r = openai.parseChat(bytes("{\"model\":\"m\",\"messages\":[{\"role\":\"user\",\"content\":["
                + "{\"type\":\"text\",\"text\":\"What is this?\"},"
                + "{\"type\":\"image_url\",\"image_url\":{\"url\":\"data:image/png;base64," + B64 + "\",\"detail\":\"auto\"}},"
                + "{\"type\":\"image_url\",\"image_url\":\"data:image/jpeg;base64," + B64 + "\"}]}]}"), Optional.empty());
        ChatMessage m = r.messages().getFirst();
        assertThat(m.content()).isEqualTo("What is this?");
        assertThat(m.images()).hasSize(2);
        assertThat(m.images().getFirst().data()).isEqualTo(PICTURE);
        assertThat(m.images().get(0).digest()).isEqualTo(m.images().get(1).digest()).hasSize(64);
        assertThat(m.images().get(1).param()).isEqualTo("messages[0].content[2].image_url");
    }

    @Test
    void ollamaImagesOnMessagesAndOnGenerate() {
        OllamaRequestParser ollama = new OllamaRequestParser(fields, RequestLimits.DEFAULT);
        ChatRequest chat = ollama.parseChat(bytes("{\"model\":\"m\",\"messages\":[{\"role\":\"user\",\"content\":\"hi\","
                + "\"images\":[\"" + B64 + "\"]}]}"), Optional.empty()).chat().orElseThrow();
        assertThat(chat.messages().getFirst().images().getFirst().data()).isEqualTo(PICTURE);
        ChatRequest generate = ollama.parseGenerate(bytes("{\"model\":\"m\",\"prompt\":\"hi\",\"images\":[\""
                + B64.substring(0, 4) + "\\n" + B64.substring(4) + "\"]}"), Optional.empty()).chat().orElseThrow();
        assertThat(generate.messages().getLast().images().getFirst().data()).isEqualTo(PICTURE);
    }

    @Test
    void anthropicBase64ImageBlocks() {
        AnthropicRequestParser anthropic = new AnthropicRequestParser(fields, RequestLimits.DEFAULT);
        ChatRequest r = anthropic.parse(bytes("{\"model\":\"m\",\"max_tokens\":10,\"messages\":[{\"role\":\"user\","
                + "\"content\":[{\"type\":\"image\",\"source\":{\"type\":\"base64\",\"media_type\":\"image/png\","
                + "\"data\":\"" + B64 + "\"}},{\"type\":\"text\",\"text\":\"Describe\"}]}]}"), Optional.empty());
        assertThat(r.messages().getFirst().images().getFirst().data()).isEqualTo(PICTURE);
        assertThat(r.messages().getFirst().content()).isEqualTo("Describe");
    }

    @Test
    void brokenBase64NamesThePart() {
        assertThatThrownBy(() -> openai.parseChat(bytes("{\"model\":\"m\",\"messages\":[{\"role\":\"user\",\"content\":["
                + "{\"type\":\"image_url\",\"image_url\":{\"url\":\"data:image/png;base64,iVBO*R%\"}}]}]}"),
                Optional.empty())).isInstanceOfSatisfying(ApiException.class, e -> {
                    assertThat(e.status()).isEqualTo(400);
                    assertThat(e.code()).contains("invalid_image");
                    assertThat(e.param()).contains("messages[0].content[0].image_url");
                });
    }

    @Test
    void urlsAreNotFetchedUnlessEnabled() throws Exception {
        HttpServer http = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        http.createContext("/cat.png", x -> {
            x.sendResponseHeaders(200, PICTURE.length);
            x.getResponseBody().write(PICTURE);
            x.close();
        });
        http.start();
        try {
            String url = "http://127.0.0.1:" + http.getAddress().getPort() + "/cat.png";
            String body = "{\"model\":\"m\",\"messages\":[{\"role\":\"user\",\"content\":[{\"type\":\"image_url\","
                    + "\"image_url\":{\"url\":\"" + url + "\"}}]}]}";
            assertThatThrownBy(() -> openai.parseChat(bytes(body), Optional.empty()))
                    .isInstanceOfSatisfying(ApiException.class, e -> assertThat(e.code())
                            .contains("image_url_not_allowed"));
            ChatRequestParser fetching = new ChatRequestParser(new CommonFields(Json.mapper(), RequestLimits.DEFAULT,
                    new ImageSources(new ImageSources.Settings(1 << 20, 4, true, Duration.ofSeconds(5)))));
            assertThat(fetching.parseChat(bytes(body), Optional.empty()).messages().getFirst().images().getFirst()
                    .data()).isEqualTo(PICTURE);
        } finally {
            http.stop(0);
        }
    }

    @Test
    void sizeAndCountAreBounded() {
        ChatRequestParser strict = new ChatRequestParser(new CommonFields(Json.mapper(), RequestLimits.DEFAULT,
                new ImageSources(new ImageSources.Settings(6, 1, false, Duration.ofSeconds(1)))));
        assertThatThrownBy(() -> strict.parseChat(bytes(imageMessages(1)), Optional.empty()))
                .isInstanceOfSatisfying(ApiException.class, e -> assertThat(e.code()).contains("image_too_large"));
        ChatRequestParser few = new ChatRequestParser(new CommonFields(Json.mapper(), RequestLimits.DEFAULT,
                new ImageSources(new ImageSources.Settings(1 << 20, 2, false, Duration.ofSeconds(1)))));
        assertThat(few.parseChat(bytes(imageMessages(2)), Optional.empty()).messages()).hasSize(2);
        assertThatThrownBy(() -> few.parseChat(bytes(imageMessages(3)), Optional.empty()))
                .isInstanceOfSatisfying(ApiException.class, e -> assertThat(e.code()).contains("too_many_images"));
    }

    private static String imageMessages(int n) {
        StringBuilder s = new StringBuilder("{\"model\":\"m\",\"messages\":[");
        for (int i = 0; i < n; i++) {
            s.append(i == 0 ? "" : ",").append("{\"role\":\"user\",\"content\":[{\"type\":\"image_url\",\"image_url\":"
                    + "{\"url\":\"data:image/png;base64,").append(B64).append("\"}}]}");
        }
        return s.append("]}").toString();
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
