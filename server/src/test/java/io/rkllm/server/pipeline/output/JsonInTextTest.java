package io.rkllm.server.pipeline.output;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class JsonInTextTest {
    private static String found(String text) {
        return JsonInText.find(text).map(JsonInText.Found::json).orElse(null);
    }

    @Test
    void theValueEndsAtItsOwnBracketNotAtOneInAString() {
        assertThat(found("Here: {\"a\": \"}]\\\"}\", \"it's\": [1]} and more {\"b\": 2}"))
                .isEqualTo("{\"a\": \"}]\\\"}\", \"it's\": [1]}");
        assertThat(JsonInText.find("```json\n[1, {\"a\": 2}]\n```").orElseThrow().repaired()).isFalse();
    }

    @Test
    void aReplyCutShortIsClosedInnermostFirst() {
        assertThat(found("{\"a\": [{\"b\": \"cut")).isEqualTo("{\"a\": [{\"b\": \"cut\"}]}");
        assertThat(found("{\"a\": [1, 2,")).isEqualTo("{\"a\": [1, 2]}");
        assertThat(found("{\"a\": 1, \"b\":")).isEqualTo("{\"a\": 1}");
    }

    @Test
    void commasBeforeAClosingBracketGoButNotInStrings() {
        assertThat(JsonInText.withoutTrailingCommas("{\"a\": \",}\", \"b\": [1, ],}"))
                .isEqualTo("{\"a\": \",}\", \"b\": [1 ]}");
        assertThat(found("{\"a\": [1,],}")).isEqualTo("{\"a\": [1]}");
    }

    @Test
    void aWholeAnswerThatIsOneScalarIsThatValue() {
        assertThat(JsonInText.scalar(" 42\n").orElseThrow().value().asInt()).isEqualTo(42);
        assertThat(JsonInText.scalar("```json\n\"yes\"\n```").orElseThrow().value().asText()).isEqualTo("yes");
        assertThat(JsonInText.scalar("true").orElseThrow().value().asBoolean()).isTrue();
        assertThat(JsonInText.scalar("42 is the answer")).isEmpty();
        assertThat(JsonInText.scalar("{\"a\": 1}")).as("a container is find's").isEmpty();
        assertThat(JsonInText.scalar("yes")).isEmpty();
    }
}
