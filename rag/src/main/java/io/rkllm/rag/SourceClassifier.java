package io.rkllm.rag;

import java.util.Locale;
import java.util.regex.Pattern;

/** Tells an extracted web page from a document chunk. */
final class SourceClassifier {
    private static final Pattern URL = Pattern.compile("(?i)^(?:https?://|www\\.)\\S+$");
    private static final Pattern DOMAIN = Pattern.compile("(?i)^[a-z0-9-]+(?:\\.[a-z0-9-]+)*\\.[a-z]{2,}(?:/\\S*)?$");
    private static final Pattern DOCUMENT = Pattern.compile(
            "(?i).+\\.(?:pdf|docx?|odt|rtf|txt|md|markdown|rst|csv|tsv|xlsx?|ods|pptx?|odp|epub|json|xml|ya?ml|tex|log|java|py|js|ts|c|h|cpp|go|rs|sql)$");

    /** Web when the name is a URL or a domain; a document when it is a file name; otherwise judged from the text. */
    boolean isWeb(String name, String text) {
        String n = name == null ? "" : name.strip();
        if (!n.isEmpty()) {
            if (URL.matcher(n).matches()) {
                String path = n.toLowerCase(Locale.ROOT).replaceAll("[?#].*$", "");
                return !DOCUMENT.matcher(path).matches() || path.endsWith(".html") || path.endsWith(".htm");
            }
            if (DOCUMENT.matcher(n).matches()) {
                return false;
            }
            if (DOMAIN.matcher(n).matches()) {
                return true;
            }
        }
        return looksLikePage(text);
    }

    /** A page's text: many lines, most of them short, with some navigation vocabulary. */
    static boolean looksLikePage(String text) {
        if (text == null) {
            return false;
        }
        String[] lines = text.split("\n");
        int nonEmpty = 0;
        int shortLines = 0;
        int labels = 0;
        for (String l : lines) {
            String s = l.strip();
            if (s.isEmpty()) {
                continue;
            }
            nonEmpty++;
            if (s.length() < 40) {
                shortLines++;
                if (Boilerplate.isLabel(s)) {
                    labels++;
                }
            }
        }
        return nonEmpty >= 30 && shortLines * 2 >= nonEmpty && labels >= 3;
    }
}
