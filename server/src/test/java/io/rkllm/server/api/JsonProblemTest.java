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
        for (String body : new String[] {"{\"a\": NaN}", "{\"a\": [}", "{\"a\":".repeat(70), "{'a': 1}", "{\"a\" 1}"}) {
            assertThat(problem(body)).as(body).doesNotContain("`").doesNotContain("Source").doesNotContain("Feature")
                    .doesNotContain("Constraints");
        }
    }
}
