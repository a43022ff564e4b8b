package io.rkllm.server.pipeline;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Optional;
import org.junit.jupiter.api.Test;

/** A schema of one value: the whole answer is that value, whatever brackets a string of it holds. */
class ScalarAnswerTest {
    private static AnswerContract.Verdict check(String schema, String answer) {
        return new AnswerContract.Json(Optional.of(SchemaCheck.of(schema, "response_format")), schema).check(answer);
    }

    @Test
    void theWholeAnswerIsTheValue() {
        assertThat(check("{\"type\":\"string\"}", "\"See reference [1].\"").ok()).isTrue();
        assertThat(check("{\"type\":\"string\"}", "\"See reference [1].\"").json()).isEqualTo("\"See reference [1].\"");
        assertThat(check("{\"type\":\"integer\"}", " 42\n").ok()).isTrue();
        assertThat(check("{\"enum\":[\"yes\",\"no\"]}", "\"maybe\"").ok()).isFalse();
        // an object schema still finds its object in prose
        assertThat(check("{\"type\":\"object\"}", "Here: {\"a\": 1}").ok()).isTrue();
    }
}
