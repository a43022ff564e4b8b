package io.rkllm.llama.text;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;

class JsonStringTest {
    private static String ascii(String text) {
        StringBuilder out = new StringBuilder();
        JsonString.quote(text, true, out);
        return out.toString();
    }

    @Test
    void quotesBackslashesAndControlCharactersAreEscaped() {
        assertThat(JsonString.quote("a\"b\\c")).isEqualTo("\"a\\\"b\\\\c\"");
        assertThat(JsonString.quote("\n\r\t\b\f")).isEqualTo("\"\\n\\r\\t\\b\\f\"");
        // lower-case hex, as Python's json.dumps writes it
        assertThat(JsonString.quote("\u0000\u001b\u001f")).isEqualTo("\"\\u0000\\u001b\\u001f\"");
        assertThat(JsonString.quote("")).isEqualTo("\"\"");
    }

    @Test
    void whatJsonAllowsStaysAsItIs() {
        // json.dumps(ensure_ascii=False) leaves the slash, DEL, line separators and non-ASCII text alone
        assertThat(JsonString.quote("a/b\u007f\u2028\u2029é😀")).isEqualTo("\"a/b\u007f\u2028\u2029é😀\"");
        assertThat(JsonString.quote("lone \ud800")).isEqualTo("\"lone \ud800\"");
    }

    @Test
    void asciiOnlyEscapesEachUtf16UnitBeyondPrintableAscii() {
        // json.dumps('\x7f\u2028é😀\ud800') == '"\\u007f\\u2028\\u00e9\\ud83d\\ude00\\ud800"'
        assertThat(ascii("~\u007f\u2028é😀\ud800")).isEqualTo("\"~\\u007f\\u2028\\u00e9\\ud83d\\ude00\\ud800\"");
        assertThat(ascii("a\"\n")).isEqualTo("\"a\\\"\\n\"");
    }

    @Test
    void everyCharacterReadsBackAsItself() throws Exception {
        StringBuilder all = new StringBuilder();
        for (char c = 0; c < 0xd800; c++) {
            all.append(c);
        }
        all.append("😀\ue000\uffff");
        ObjectMapper json = new ObjectMapper();
        assertThat(json.readValue(JsonString.quote(all.toString()), String.class)).isEqualTo(all.toString());
        assertThat(json.readValue(ascii(all.toString()), String.class)).isEqualTo(all.toString());
    }
}
