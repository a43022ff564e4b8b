package io.rkllm.server.pipeline;

import static org.assertj.core.api.Assertions.assertThat;

import io.rkllm.server.pipeline.output.OutputEvent;
import io.rkllm.server.pipeline.request.EditorStops;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** llama-server's n_indent and t_max_predict_ms over an answer's tokens. */
class EditorStopWatchTest {
    private static final long MS = 1_000_000;

    private static List<OutputEvent> token(String text) {
        return List.of(new OutputEvent.Content(text));
    }

    private static String text(List<OutputEvent> events) {
        StringBuilder s = new StringBuilder();
        events.forEach(e -> s.append(((OutputEvent.Content) e).text()));
        return s.toString();
    }

    @Test
    void aLineIndentedLessThanAskedEndsTheAnswerBeforeItsFirstCharacter() {
        EditorStopWatch watch = new EditorStopWatch(new EditorStops(4, Duration.ZERO));
        assertThat(watch.check(token("x = 1"), 0)).isEmpty();
        assertThat(watch.check(token("\n    y"), 0)).as("indented enough").isEmpty();
        assertThat(watch.check(token(" = 2\n  "), 0)).as("its indentation not known yet").isEmpty();
        Optional<List<OutputEvent>> cut = watch.check(token("  \treturn"), 0);
        assertThat(cut).isEmpty();
        Optional<List<OutputEvent>> end = new EditorStopWatch(new EditorStops(4, Duration.ZERO))
                .check(token("a\n  b"), 0);
        assertThat(end.map(EditorStopWatchTest::text)).contains("a\n  ");
        // the new line's first character in a later token
        EditorStopWatch later = new EditorStopWatch(new EditorStops(4, Duration.ZERO));
        assertThat(later.check(token("a\n"), 0)).isEmpty();
        assertThat(later.check(token("def"), 0).map(EditorStopWatchTest::text)).contains("");
    }

    @Test
    void aBlankLineEndsItAsLlamaServerEndsIt() {
        EditorStopWatch watch = new EditorStopWatch(new EditorStops(4, Duration.ZERO));
        assertThat(watch.check(token("    x = 1"), 0)).isEmpty();
        assertThat(watch.check(token("\n"), 0)).isEmpty();
        assertThat(watch.check(token("\n    y"), 0).map(EditorStopWatchTest::text)).contains("");
        EditorStopWatch crlf = new EditorStopWatch(new EditorStops(4, Duration.ZERO));
        assertThat(crlf.check(token("    x = 1\r\n\r\n"), 0).map(EditorStopWatchTest::text)).contains("    x = 1\r\n");
    }

    @Test
    void aNewLineAfterTheTimeEndsTheAnswerAfterItsToken() {
        EditorStopWatch watch = new EditorStopWatch(new EditorStops(0, Duration.ofMillis(100)));
        assertThat(watch.check(token("a\nb"), 50 * MS)).as("in time").isEmpty();
        assertThat(watch.check(token("cd"), 150 * MS)).as("late, but no new line").isEmpty();
        assertThat(watch.check(token("e\nf"), 160 * MS).map(EditorStopWatchTest::text)).contains("e\nf");
    }

    @Test
    void noStopsWatchNothing() {
        EditorStopWatch watch = new EditorStopWatch(EditorStops.NONE);
        assertThat(watch.check(token("a\nb\n"), Long.MAX_VALUE)).isEmpty();
    }
}
