package io.rkllm.server.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import io.rkllm.server.api.ApiException;
import io.rkllm.server.api.CommonFields;
import io.rkllm.server.api.Json;
import io.rkllm.server.api.RequestLimits;
import io.rkllm.server.http.ollama.OllamaRequestParser;
import io.rkllm.server.pipeline.request.Thinking;
import java.nio.charset.StandardCharsets;
import java.util.Optional;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.api.Test;

/**
 * Ollama's {@code think} as its newer clients send it: a switch or an effort, "max" among them (gpt-oss's harmony
 * format knows low, medium and high, so "max" is its "high", as Ollama maps it).
 */
class OllamaThinkTest {
    private final OllamaRequestParser parser = new OllamaRequestParser(new CommonFields(Json.mapper(),
            RequestLimits.DEFAULT), RequestLimits.DEFAULT);

    private Thinking thinking(String think) {
        return parser.parseChat(("{\"model\":\"m\",\"think\":" + think + ",\"messages\":[{\"role\":\"user\",\"content\":"
                + "\"hi\"}]}").getBytes(StandardCharsets.UTF_8), Optional.empty()).chat().orElseThrow().thinking();
    }

    @ParameterizedTest
    @CsvSource({"'\"low\"', true, low", "'\"medium\"', true, medium", "'\"high\"', true, high",
            "'\"max\"', true, high", "'\"MAX\"', true, high", "true, true, ''", "false, false, ''"})
    void aSwitchOrAnEffort(String think, boolean on, String effort) {
        Thinking t = thinking(think);
        assertThat(t.on()).contains(on);
        assertThat(t.effort()).isEqualTo(effort.isEmpty() ? Optional.empty() : Optional.of(effort));
    }

    @Test
    void absentIsTheModelsDefault() {
        assertThat(thinking("null")).isEqualTo(Thinking.UNSAID);
    }

    @Test
    void anythingElseIsA400NamingTheValues() {
        ApiException e = catchThrowableOfType(ApiException.class, () -> thinking("\"ultra\""));
        assertThat(e.status()).isEqualTo(400);
        assertThat(e.getMessage()).isEqualTo("'think' must be true, false, \"low\", \"medium\", \"high\" or \"max\"");
        assertThat(catchThrowableOfType(ApiException.class, () -> thinking("3")).status()).isEqualTo(400);
    }
}
