package io.rkllm.server.api;

import com.fasterxml.jackson.core.JacksonException;
import com.fasterxml.jackson.core.JsonLocation;
import java.util.regex.Pattern;

/**
 * What is wrong with a body that is not JSON, in the client's terms: Jackson's own message without the parts meant
 * for a Java programmer (the feature to enable, the constraint's getter, a redacted source), and where it is.
 */
final class JsonProblem {
    /** "enable `JsonReadFeature.ALLOW_NON_NUMERIC_NUMBERS` to allow", "from `StreamReadConstraints.get...()`". */
    private static final Pattern JAVA_HINTS = Pattern.compile(
            "\\s*[:;,]?\\s*(?:enable|from) `[^`]*`(?: to allow)?"
                    + "|\\s*\\(not recognized as one since Feature '[^']*' not enabled for parser\\)"
                    + "|\\s*\\(bound as `[^`]*`\\)|:?\\s*not allowed as per `[^`]*`");
    /** "at [Source: REDACTED (...); line: 1, column: 6]": where, without the source's Java description. */
    private static final Pattern SOURCE = Pattern.compile("\\[Source:[^\\]]*?line: (\\d+), column: (\\d+)\\]");

    private JsonProblem() {
    }

    static String describe(JacksonException e) {
        String message = JAVA_HINTS.matcher(String.valueOf(e.getOriginalMessage())).replaceAll("");
        message = SOURCE.matcher(message).replaceAll("line $1, column $2").strip();
        JsonLocation at = e.getLocation();
        return at == null || at.getLineNr() < 1 ? message
                : message + " (line " + at.getLineNr() + ", column " + at.getColumnNr() + ")";
    }
}
