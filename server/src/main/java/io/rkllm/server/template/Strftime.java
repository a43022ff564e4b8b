package io.rkllm.server.template;

import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.Locale;

/**
 * Python's {@code datetime.strftime} in the C locale, which chat templates call through {@code strftime_now}
 * ({@code "%d %b %Y"}, {@code "%Y-%m-%d"}, {@code "%B %d, %Y"}): each directive on its own, so that a letter
 * around them stays a letter (a pattern translated into DateTimeFormatter's would read it as a field).
 */
final class Strftime {
    private Strftime() {
    }

    static String format(String format, LocalDateTime time) {
        StringBuilder out = new StringBuilder();
        for (int i = 0; i < format.length(); i++) {
            char c = format.charAt(i);
            if (c != '%' || i + 1 >= format.length()) {
                out.append(c);
                continue;
            }
            char d = format.charAt(++i);
            boolean unpadded = d == '-' && i + 1 < format.length(); // glibc's %-d: no leading zero
            if (unpadded) {
                d = format.charAt(++i);
            }
            String field = field(d, time);
            if (field == null) {
                out.append('%').append(unpadded ? "-" : "").append(d); // as glibc leaves an unknown directive
            } else {
                out.append(unpadded ? stripZeros(field) : field);
            }
        }
        return out.toString();
    }

    private static String field(char directive, LocalDateTime t) {
        return switch (directive) {
            case 'Y' -> String.valueOf(t.getYear());
            case 'y' -> two(t.getYear() % 100);
            case 'm' -> two(t.getMonthValue());
            case 'd' -> two(t.getDayOfMonth());
            case 'e' -> String.format(Locale.ROOT, "%2d", t.getDayOfMonth());
            case 'j' -> String.format(Locale.ROOT, "%03d", t.getDayOfYear());
            case 'H' -> two(t.getHour());
            case 'I' -> two(t.getHour() % 12 == 0 ? 12 : t.getHour() % 12);
            case 'M' -> two(t.getMinute());
            case 'S' -> two(t.getSecond());
            case 'p' -> t.getHour() < 12 ? "AM" : "PM";
            case 'B' -> t.format(DateTimeFormatter.ofPattern("MMMM", Locale.ENGLISH));
            case 'b', 'h' -> t.format(DateTimeFormatter.ofPattern("MMM", Locale.ENGLISH));
            case 'A' -> t.format(DateTimeFormatter.ofPattern("EEEE", Locale.ENGLISH));
            case 'a' -> t.format(DateTimeFormatter.ofPattern("EEE", Locale.ENGLISH));
            case '%' -> "%";
            default -> null;
        };
    }

    private static String two(int value) {
        return value < 10 ? "0" + value : String.valueOf(value);
    }

    private static String stripZeros(String field) {
        String stripped = field.replaceFirst("^[0 ]+(?=.)", "");
        return stripped;
    }
}
