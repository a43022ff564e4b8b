package io.rkllm.server.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import com.fasterxml.jackson.core.JacksonException;
import org.junit.jupiter.api.Test;

/** Bodies that are not JSON, described without Jackson's advice to a Java programmer, with where the problem is. */
class JsonProblemTest {
    private static String problem(String body) {
        JacksonException e = catchThrowableOfType(JacksonException.class, () -> Json.mapper().readTree(body));
        return JsonProblem.describe(e);
    }

    @Test
    void theClientReadsWhatIsWrongAndWhere() {
        assertThat(problem("{\"temperature\": NaN}")).isEqualTo("Non-standard token 'NaN' (line 1, column 20)");
        assertThat(problem("{\"a\": [}")).startsWith("Unexpected close marker '}': expected ']'")
                .endsWith("(line 1, column 8)");
        assertThat(problem("{\"a\":".repeat(70) + "1" + "}".repeat(70)))
                .startsWith("Document nesting depth (65) exceeds the maximum allowed (64)");
        assertThat(problem("{\"a\": [1, 2}")).contains("Array starting at line 1, column 7");
        JacksonException trailing = catchThrowableOfType(JacksonException.class, () -> Json.mapper().reader()
                .with(com.fasterxml.jackson.databind.DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
                .readTree("{\"a\": 1} \"x\""));
        assertThat(JsonProblem.describe(trailing)).startsWith("Trailing token").doesNotContain("`")
                .doesNotContain("bound");
        for (String body : new String[] {"{\"a\": NaN}", "{\"a\": [}", "{\"a\":".repeat(70), "{'a': 1}", "{\"a\" 1}",
                "{\"a\":1 /* c */}", "{\"a\": \"x", "{\"a\": 1,}", "{\"a\": +1}", "{\"a\": 01}", "{\"a\": [1, 2}"}) {
            assertThat(problem(body)).as(body).doesNotContain("`").doesNotContain("Source").doesNotContain("Feature")
                    .doesNotContain("Constraints").doesNotContain("parser");
        }
    }

    @Test
    void bytesThatAreNotUtf8AreFoundWhereTheyStart() {
        byte[] valid = "{\"a\": \"é ✓ 😀 \uFFFF \uDBFF\uDFFF\"}".getBytes(java.nio.charset.StandardCharsets.UTF_8);
        assertThat(Utf8Check.firstMalformed(valid))
                .isEqualTo(-1);
        assertThat(Utf8Check.firstMalformed(new byte[] {'{', (byte) 0xff, '}'})).isEqualTo(1);
        // a cut sequence, an overlong slash, a surrogate, beyond U+10FFFF
        assertThat(Utf8Check.firstMalformed(new byte[] {'a', (byte) 0xe2, (byte) 0x82})).isEqualTo(1);
        assertThat(Utf8Check.firstMalformed(new byte[] {(byte) 0xc0, (byte) 0xaf})).isZero();
        assertThat(Utf8Check.firstMalformed(new byte[] {(byte) 0xed, (byte) 0xa0, (byte) 0x80})).isZero();
        assertThat(Utf8Check.firstMalformed(new byte[] {(byte) 0xf4, (byte) 0x90, (byte) 0x80, (byte) 0x80})).isZero();
    }
}
