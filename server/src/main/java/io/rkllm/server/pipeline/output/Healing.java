package io.rkllm.server.pipeline.output;

import io.rkllm.server.text.BracketScanner;
import java.util.List;
import java.util.Optional;

/**
 * How the text of a tool-call block cut anywhere is closed, so that a reader reads what it holds so far: the
 * strings and brackets left open closed, a marker cut in the middle left out. What the calls then say is only a
 * guess at their end; {@code StreamedCalls} keeps of it what more text cannot change.
 */
public final class Healing {
    private Healing() {
    }

    /** JSON: the open string's quote, then the open brackets' closers; empty when the text ends inside an escape. */
    public static Optional<String> json(String text) {
        return close(text, BracketScanner.Syntax.JSON);
    }

    /** A JSON block's one ending: its open strings and brackets closed; none inside an escape. */
    public static List<CallEnding> jsonEndings(String text) {
        return json(text).map(tail -> List.of(new CallEnding(text, tail))).orElse(List.of());
    }

    /** Python's literals and calls ({@code [f(a="x"}): the open string's quote, then the brackets' closers. */
    public static Optional<String> python(String text) {
        return close(text, BracketScanner.Syntax.JINJA);
    }

    private static Optional<String> close(String text, BracketScanner.Syntax syntax) {
        BracketScanner scanner = new BracketScanner(text, 0, syntax);
        char quote = 0;
        int backslashes = 0;
        while (scanner.next()) {
            char c = scanner.current();
            if (!scanner.inLiteral()) {
                quote = 0;
                backslashes = 0;
            } else if (quote == 0) {
                quote = c; // the literal's opening quote
                backslashes = 0;
            } else {
                backslashes = c == '\\' ? backslashes + 1 : 0;
            }
        }
        if (scanner.inLiteral() && backslashes % 2 == 1) {
            return Optional.empty();
        }
        return Optional.of((scanner.inLiteral() ? String.valueOf(quote) : "") + scanner.closers());
    }

    /**
     * The text less the start of any of {@code markers} it ends with ("{@code </param}"): such text may be a
     * marker, not a value's, and is read once what follows tells.
     */
    public static String withoutPartialMarker(String text, List<String> markers) {
        int cut = 0;
        for (String marker : markers) {
            for (int n = Math.min(marker.length() - 1, text.length()); n > cut; n--) {
                if (text.endsWith(marker.substring(0, n))) {
                    cut = n;
                    break;
                }
            }
        }
        return text.substring(0, text.length() - cut);
    }
}
