package io.rkllm.server.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.openai.client.OpenAIClient;
import com.openai.client.okhttp.OpenAIOkHttpClient;
import com.openai.core.http.StreamResponse;
import com.openai.errors.BadRequestException;
import com.openai.errors.NotFoundException;
import com.openai.errors.OpenAIException;
import com.openai.helpers.ChatCompletionAccumulator;
import com.openai.models.chat.completions.ChatCompletion;
import com.openai.models.chat.completions.ChatCompletionChunk;
import com.openai.models.chat.completions.ChatCompletionCreateParams;
import com.openai.models.chat.completions.ChatCompletionStreamOptions;
import com.openai.models.embeddings.CreateEmbeddingResponse;
import com.openai.models.embeddings.EmbeddingCreateParams;
import com.openai.models.models.Model;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The official OpenAI Java SDK against the real server: what SDK users get, parsed by the SDK itself. */
class OpenAiSdkTest {
    @TempDir
    Path dir;

    private static OpenAIClient client(TestServer server) {
        return OpenAIOkHttpClient.builder().baseUrl(server.url("/v1")).apiKey("any").maxRetries(0)
                .timeout(Duration.ofSeconds(30)).build();
    }

    private static ChatCompletionCreateParams.Builder chat(String content) {
        return ChatCompletionCreateParams.builder().model("m").addUserMessage(content);
    }

    @Test
    void nonStreamingChat() throws Exception {
        try (TestServer server = TestServer.in(dir).model("m", Map.of()).start()) {
            OpenAIClient client = client(server);
            ChatCompletion completion = client.chat().completions().create(chat("[[say:Hello, wörld 日本!]]")
                    .temperature(0.7).maxCompletionTokens(100).build());
            assertThat(completion.id()).startsWith("chatcmpl-");
            assertThat(completion.model()).isEqualTo("m");
            assertThat(completion.choices()).hasSize(1);
            ChatCompletion.Choice choice = completion.choices().getFirst();
            assertThat(choice.message().content()).contains("Hello, wörld 日本!");
            assertThat(choice.finishReason()).isEqualTo(ChatCompletion.Choice.FinishReason.STOP);
            assertThat(choice.message().toolCalls()).isEmpty();
            var usage = completion.usage().orElseThrow();
            assertThat(usage.totalTokens()).isEqualTo(usage.promptTokens() + usage.completionTokens());
            assertThat(usage.completionTokens()).isEqualTo(server.runs("m").getLast().get("generate_tokens").asLong());
            client.close();
        }
    }

    @Test
    void streamingChatAccumulatesToTheSameAnswer() throws Exception {
        try (TestServer server = TestServer.in(dir).model("m", Map.of()).start()) {
            OpenAIClient client = client(server);
            // the simulated answer depends on the prompt and the KV cache's size: after a first run of the
            // prompt, every repeat starts from the same cache (the kept system prompt)
            client.chat().completions().create(chat("Tell me more").build());
            String plain = client.chat().completions().create(chat("Tell me more").build()).choices().getFirst()
                    .message().content().orElseThrow();
            ChatCompletionAccumulator accumulator = ChatCompletionAccumulator.create();
            List<ChatCompletionChunk> chunks = new ArrayList<>();
            try (StreamResponse<ChatCompletionChunk> stream = client.chat().completions().createStreaming(
                    chat("Tell me more").streamOptions(ChatCompletionStreamOptions.builder().includeUsage(true)
                            .build()).build())) {
                stream.stream().forEach(chunk -> {
                    chunks.add(chunk);
                    accumulator.accumulate(chunk);
                });
            }
            ChatCompletion streamed = accumulator.chatCompletion();
            assertThat(streamed.choices().getFirst().message().content()).contains(plain);
            assertThat(streamed.choices().getFirst().finishReason()).isEqualTo(ChatCompletion.Choice.FinishReason.STOP);
            assertThat(streamed.usage().orElseThrow().completionTokens())
                    .isEqualTo(server.runs("m").getLast().get("generate_tokens").asLong());
            assertThat(chunks.getFirst().choices().getFirst().delta().role()).isPresent();
            assertThat(chunks.stream().map(ChatCompletionChunk::id).distinct()).hasSize(1);
            client.close();
        }
    }

    @Test
    void modelListingAndRetrieval() throws Exception {
        try (TestServer server = TestServer.in(dir).model("m", Map.of()).model("n-2.5", Map.of()).start()) {
            OpenAIClient client = client(server);
            List<Model> models = client.models().list().data();
            assertThat(models).extracting(Model::id).containsExactlyInAnyOrder("m", "n-2.5");
            assertThat(models).allSatisfy(m -> {
                assertThat(m.ownedBy()).isNotBlank();
                assertThat(m.created()).isPositive();
            });
            Model one = client.models().retrieve("n-2.5");
            assertThat(one.id()).isEqualTo("n-2.5");
            assertThat(one._additionalProperties()).containsKeys("loaded", "context_length");
            client.close();
        }
    }

    @Test
    void errorsMapToTheSdkExceptionsWithTheServersMessage() throws Exception {
        try (TestServer server = TestServer.in(dir).model("m", Map.of()).start()) {
            OpenAIClient client = client(server);
            String nMessage = server.postForReply("/v1/chat/completions",
                    QueueTest.chat("hi", false).replace("}]}", "}],\"n\":2}")).json().at("/error/message").asText();
            assertThatThrownBy(() -> client.chat().completions().create(ChatCompletionCreateParams.builder()
                    .model("nope").addUserMessage("hi").build()))
                    .isInstanceOfSatisfying(NotFoundException.class, e -> {
                        assertThat(e.statusCode()).isEqualTo(404);
                        assertThat(e.code()).contains("model_not_found");
                        assertThat(e.getMessage()).contains("The model 'nope' does not exist");
                    });
            assertThatThrownBy(() -> client.models().retrieve("nope")).isInstanceOf(NotFoundException.class);
            assertThatThrownBy(() -> client.chat().completions().create(chat("hi").n(2).build()))
                    .isInstanceOfSatisfying(BadRequestException.class, e -> {
                        assertThat(e.statusCode()).isEqualTo(400);
                        assertThat(e.type()).contains("invalid_request_error");
                        assertThat(e.param()).contains("n");
                        assertThat(e.getMessage()).contains(nMessage);
                    });
            assertThatThrownBy(() -> {
                try (var stream = client.chat().completions().createStreaming(ChatCompletionCreateParams.builder()
                        .model("nope").addUserMessage("hi").build())) {
                    stream.stream().count();
                }
            }).as("known before the stream starts: a plain 404").isInstanceOf(NotFoundException.class);
            client.close();
        }
    }

    @Test
    void anErrorEventMidStreamReachesTheSdkUserAsAnException() throws Exception {
        try (TestServer server = TestServer.in(dir).model("m", Map.of("fault", "error_after=3")).start()) {
            OpenAIClient client = client(server);
            List<ChatCompletionChunk> received = new ArrayList<>();
            assertThatThrownBy(() -> {
                try (var stream = client.chat().completions().createStreaming(chat("[[tokens:20]]").build())) {
                    stream.stream().forEach(received::add);
                }
            }).isInstanceOf(OpenAIException.class).hasMessageContaining("the model failed while generating");
            assertThat(received).isNotEmpty();
            client.close();
        }
    }

    @Test
    void embeddingsInTheSdksDefaultEncodingAndAsFloats() throws Exception {
        try (TestServer server = TestServer.in(dir).model("m", Map.of()).model("e", EmbeddingsApiTest.EMBEDDING)
                .sidecar("e", EmbeddingsApiTest.SIDECAR).start()) {
            OpenAIClient client = client(server);
            List<float[]> expected = EmbeddingsApiTest.vectors(server.postForReply("/v1/embeddings",
                    EmbeddingsApiTest.body("[\"first chunk\", \"second chunk\"]", "")));
            for (EmbeddingCreateParams.EncodingFormat format : new EmbeddingCreateParams.EncodingFormat[] {null,
                    EmbeddingCreateParams.EncodingFormat.FLOAT, EmbeddingCreateParams.EncodingFormat.BASE64}) {
                EmbeddingCreateParams.Builder params = EmbeddingCreateParams.builder().model("e")
                        .inputOfArrayOfStrings(List.of("first chunk", "second chunk"));
                if (format != null) {
                    params.encodingFormat(format);
                }
                CreateEmbeddingResponse response = client.embeddings().create(params.build());
                assertThat(response.model()).isEqualTo("e");
                assertThat(response.data()).hasSize(2);
                for (int i = 0; i < 2; i++) {
                    assertThat(response.data().get(i).index()).isEqualTo(i);
                    List<Float> vector = response.data().get(i).embedding();
                    assertThat(vector).as("format %s, input %d", format, i).hasSize(EmbeddingsApiTest.WIDTH);
                    for (int k = 0; k < vector.size(); k++) {
                        assertThat(vector.get(k)).isEqualTo(expected.get(i)[k]);
                    }
                }
                assertThat(response.usage().promptTokens()).isEqualTo(response.usage().totalTokens()).isPositive();
            }
            CreateEmbeddingResponse shortened = client.embeddings().create(EmbeddingCreateParams.builder().model("e")
                    .input("first chunk").dimensions(8).build());
            assertThat(shortened.data().getFirst().embedding()).hasSize(8);
            assertThatThrownBy(() -> client.embeddings().create(EmbeddingCreateParams.builder().model("m")
                    .input("hi").build())).isInstanceOf(BadRequestException.class)
                    .hasMessageContaining("is a chat model");
            client.close();
        }
    }

    /** What {@code chat.completions.parse} with a schema does in the Python SDK: the Java SDK derives it from a class. */
    public static final class City {
        public String city;
        public long population;
    }

    @Test
    void structuredOutputFromAClass() throws Exception {
        try (TestServer server = TestServer.in(dir).model("m", Map.of()).start()) {
            OpenAIClient client = client(server);
            var params = ChatCompletionCreateParams.builder().model("m")
                    .addUserMessage("[[json:trailing_comma]] Describe Paris.").responseFormat(City.class).build();
            var completion = client.chat().completions().create(params);
            City city = completion.choices().getFirst().message().content().orElseThrow();
            assertThat(city.city).isEqualTo("sim");
            assertThat(server.runs("m").getLast().get("prompt").asText()).contains("\"population\"");
            client.close();
        }
    }

    @Test
    void reasoningTokensOfAThinkingModel() throws Exception {
        try (TestServer server = TestServer.in(dir).model("m", Map.of("thinking", "1")).sidecar("m",
                "family: qwen3\n").start()) {
            OpenAIClient client = client(server);
            ChatCompletion completion = client.chat().completions().create(chat("Why is the sky blue?").build());
            var details = completion.usage().orElseThrow().completionTokensDetails().orElseThrow();
            assertThat(details.reasoningTokens().orElseThrow()).isPositive()
                    .isLessThan(completion.usage().orElseThrow().completionTokens());
            client.close();
        }
    }
}
