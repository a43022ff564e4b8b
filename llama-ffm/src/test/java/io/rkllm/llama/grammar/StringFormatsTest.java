package io.rkllm.llama.grammar;

import static io.rkllm.llama.grammar.SchemaCatalogue.schema;
import static org.assertj.core.api.Assertions.assertThat;

import io.rkllm.llama.grammar.JsonWhitespace;
import java.time.LocalDate;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The formats with a grammar accept what the validator (format assertions on) accepts, and nothing it refuses. */
class StringFormatsTest {
    private static GbnfMatcher matcher(String format) {
        return new GbnfMatcher(JsonSchemaGrammar.of(schema("{\"type\": \"string\", \"format\": \"" + format + "\"}"),
                JsonWhitespace.COMPACT));
    }

    @Test
    void everyDayOfTwoYearsButTheLeapDay() {
        GbnfMatcher m = matcher("date");
        for (LocalDate day = LocalDate.of(2023, 1, 1); day.getYear() < 2025; day = day.plusDays(1)) {
            String text = "\"" + day + "\"";
            boolean leapDay = day.getMonthValue() == 2 && day.getDayOfMonth() == 29;
            assertThat(m.matches(text)).as(text).isEqualTo(!leapDay);
            assertThat(SchemaCatalogue.problems("{\"format\": \"date\"}", text)).isEmpty();
        }
        for (String text : List.of("\"2023-02-29\"", "\"2023-04-31\"", "\"2023-13-01\"", "\"2023-00-10\"",
                "\"2023-01-00\"", "\"2023-1-01\"", "\"23-01-01\"", "\"2023-01-32\"")) {
            assertThat(m.matches(text)).as(text).isFalse();
        }
    }

    @Test
    void timesAndDateTimesWithOffsetsJavaTimeTakes() {
        GbnfMatcher time = matcher("time");
        GbnfMatcher dateTime = matcher("date-time");
        for (String t : List.of("00:00:00Z", "23:59:59Z", "12:30:05.5+02:00", "08:00:00.123456-17:59")) {
            assertThat(time.matches("\"" + t + "\"")).as(t).isTrue();
            assertThat(SchemaCatalogue.problems("{\"format\": \"time\"}", "\"" + t + "\"")).isEmpty();
            String dt = "\"2024-07-31T" + t + "\"";
            assertThat(dateTime.matches(dt)).as(dt).isTrue();
            assertThat(SchemaCatalogue.problems("{\"format\": \"date-time\"}", dt)).isEmpty();
        }
        for (String t : List.of("24:00:00Z", "12:60:00Z", "12:00:60Z", "12:00:00", "12:00:00+18:00", "12:00Z",
                "12:00:00.Z", "12:00:00.1234567Z", "12:00:00z")) {
            assertThat(time.matches("\"" + t + "\"")).as(t).isFalse();
        }
        assertThat(dateTime.matches("\"2024-07-31 12:00:00Z\"")).isFalse();
    }

    @Test
    void uuidsAndIpv4Addresses() {
        GbnfMatcher uuid = matcher("uuid");
        assertThat(uuid.matches("\"123e4567-e89b-12d3-a456-426614174000\"")).isTrue();
        assertThat(uuid.matches("\"123e4567e89b12d3a456426614174000\"")).isFalse();
        GbnfMatcher ipv4 = matcher("ipv4");
        for (String ip : List.of("0.0.0.0", "255.255.255.255", "10.0.12.1", "192.168.1.99")) {
            assertThat(ipv4.matches("\"" + ip + "\"")).as(ip).isTrue();
            assertThat(SchemaCatalogue.problems("{\"format\": \"ipv4\"}", "\"" + ip + "\"")).isEmpty();
        }
        for (String ip : List.of("256.1.1.1", "01.2.3.4", "1.2.3", "1.2.3.4.5", "1.2.3.-4")) {
            assertThat(ipv4.matches("\"" + ip + "\"")).as(ip).isFalse();
        }
    }

    @Test
    void otherFormatsAreAnnotationsSoPlainStrings() {
        assertThat(JsonSchemaGrammar.of(schema("{\"type\": \"string\", \"format\": \"email\"}"), JsonWhitespace.COMPACT))
                .startsWith("root ::= string\n");
        assertThat(JsonSchemaGrammar.of(schema("{\"format\": \"email\"}"), JsonWhitespace.COMPACT))
                .startsWith("root ::= value\n");
        assertThat(JsonSchemaGrammar.of(schema("{\"format\": \"date\"}"), JsonWhitespace.COMPACT))
                .startsWith("root ::= \"\\\"\" date-content");
    }
}
