package io.rkllm.server.pipeline.output;

import static org.assertj.core.api.Assertions.assertThat;

import io.rkllm.server.pipeline.output.FunctionCall;
import org.junit.jupiter.api.Test;

class ToolCallParserTest {

    private final ToolCallParser parser = new ToolCallParser();

    @Test
    void objectArgumentsBecomeCompactJsonInTheirOrder() {
        assertThat(parser.parse("\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\", \"a\": [1, {\"b\": true}]}}\n"))
                .contains(new FunctionCall("get_weather", "{\"city\":\"Paris\",\"a\":[1,{\"b\":true}]}"));
    }

    @Test
    void stringArgumentsAreCompactedWhenTheyAreJson() {
        assertThat(parser.parse("{\"name\": \"f\", \"arguments\": \"{ \\\"x\\\" : 1 }\"}"))
                .contains(new FunctionCall("f", "{\"x\":1}"));
    }

    @Test
    void stringArgumentsThatAreNotJsonArePassedOn() {
        assertThat(parser.parse("{\"name\": \"f\", \"arguments\": \"city=Paris\"}"))
                .contains(new FunctionCall("f", "city=Paris"));
    }

    @Test
    void missingNullOrBlankArgumentsAreAnEmptyObject() {
        assertThat(parser.parse("{\"name\": \"f\"}")).contains(new FunctionCall("f", "{}"));
        assertThat(parser.parse("{\"name\": \"f\", \"arguments\": null}")).contains(new FunctionCall("f", "{}"));
        assertThat(parser.parse("{\"name\": \"f\", \"arguments\": \" \"}")).contains(new FunctionCall("f", "{}"));
    }

    @Test
    void parametersIsAcceptedForArguments() {
        assertThat(parser.parse("{\"name\": \"f\", \"parameters\": {\"q\": \"x\"}}"))
                .contains(new FunctionCall("f", "{\"q\":\"x\"}"));
    }

    @Test
    void numbersKeepTheirDigits() {
        assertThat(parser.parse("{\"name\": \"f\", \"arguments\": {\"p\": 1.10, \"big\": 12345678901234567890123, \"e\": 0.1}}"))
                .contains(new FunctionCall("f", "{\"p\":1.10,\"big\":12345678901234567890123,\"e\":0.1}"));
    }

    @Test
    void unicodeIsKept() {
        assertThat(parser.parse("{\"name\": \"天気\", \"arguments\": {\"city\": \"東京 🗼\"}}"))
                .contains(new FunctionCall("天気", "{\"city\":\"東京 🗼\"}"));
    }

    @Test
    void rejectsWhatIsNotOneCallObject() {
        assertThat(parser.parse("")).isEmpty();
        assertThat(parser.parse("{not json}")).isEmpty();
        assertThat(parser.parse("{\"name\": \"f\", \"arguments\": {}")).isEmpty();
        assertThat(parser.parse("{\"name\": \"f\"}}")).isEmpty();
        assertThat(parser.parse("{\"name\": \"f\"} {\"name\": \"g\"}")).isEmpty();
        assertThat(parser.parse("[{\"name\": \"f\"}]")).isEmpty();
        assertThat(parser.parse("{\"arguments\": {}}")).isEmpty();
        assertThat(parser.parse("{\"name\": 3}")).isEmpty();
        assertThat(parser.parse("{\"name\": \" \"}")).isEmpty();
        assertThat(parser.parse("\"f\"")).isEmpty();
    }
}
