package io.rkllm.llama.grammar;

import java.util.Map;

/**
 * The {@code format}s with a simple grammar, written strictly enough for a validator that asserts formats:
 * {@code date} (RFC 3339 full-date, each month with its own number of days; 29 February is left out since the
 * year is not known when the day is written), {@code time} (full-time: seconds, an optional fraction, a {@code Z}
 * or a numeric offset below 18 hours, the most java.time takes), {@code date-time}, {@code uuid} and
 * {@code ipv4}. Other formats are annotations in JSON Schema 2020-12 unless a validator is told to assert them:
 * their strings are written as plain strings.
 */
final class StringFormats {
    private static final String DAY_31 = "(\"0\" [1-9] | [12] [0-9] | \"3\" [01])";
    private static final String DAY_30 = "(\"0\" [1-9] | [12] [0-9] | \"30\")";
    private static final String DAY_28 = "(\"0\" [1-9] | \"1\" [0-9] | \"2\" [0-8])";
    private static final String DATE = "[0-9]{4} \"-\" ((\"0\" [13578] | \"1\" [02]) \"-\" " + DAY_31
            + " | (\"0\" [469] | \"11\") \"-\" " + DAY_30 + " | \"02-\" " + DAY_28 + ")";
    private static final String HOUR = "([01] [0-9] | \"2\" [0-3])";
    /** Offsets up to 17:59: java.time (which validators use) stops at 18:00, RFC 3339 at 23:59. */
    private static final String OFFSET = "(\"Z\" | [-+] (\"0\" [0-9] | \"1\" [0-7]) \":\" [0-5] [0-9])";
    private static final String TIME = HOUR + " \":\" [0-5] [0-9] \":\" [0-5] [0-9] (\".\" [0-9]{1,6})? " + OFFSET;
    private static final String HEX = "[0-9a-fA-F]";
    private static final String UUID = HEX + "{8} \"-\" " + HEX + "{4} \"-\" " + HEX + "{4} \"-\" " + HEX + "{4} \"-\" "
            + HEX + "{12}";
    private static final String OCTET = "(\"25\" [0-5] | \"2\" [0-4] [0-9] | \"1\" [0-9] [0-9] | [1-9] [0-9] | [0-9])";

    private static final Map<String, String> CONTENT = Map.of(
            "date", DATE,
            "time", TIME,
            "date-time", DATE + " \"T\" " + TIME,
            "uuid", UUID,
            "ipv4", OCTET + " \".\" " + OCTET + " \".\" " + OCTET + " \".\" " + OCTET);

    private StringFormats() {
    }

    static boolean isKnown(Object format) {
        return format instanceof String s && CONTENT.containsKey(s);
    }

    /** The grammar of the string's content (between the quotes) in {@code format}. */
    static String content(String format) {
        return CONTENT.get(format);
    }
}
