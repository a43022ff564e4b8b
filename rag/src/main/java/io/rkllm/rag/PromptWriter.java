package io.rkllm.rag;

import java.time.LocalDate;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Pattern;

/**
 * Writes the compact prompt small models answer best from: a reading-comprehension form with the
 * reference passages first, each marked with its source id, then "According to the above, ..." and
 * a one-line instruction about citing.
 */
final class PromptWriter {
    private static final DateTimeFormatter DATE = DateTimeFormatter.ofPattern("EEEE, d MMMM yyyy", Locale.ENGLISH);
    private static final Pattern SUMMARY = Pattern.compile(
            "(?i)\\b(?:summari[sz]e|summary|sum up|overview|main points|key points|tl;?dr|résume|résumé|zusammenfass\\w*"
            + "|resume|resumen|resumo|riassum\\w*)\\b|总结|總結|摘要|概括|要約|まとめ");

    static boolean isSummaryRequest(String question) {
        return SUMMARY.matcher(question).find();
    }

    /** The date line, or "" when no date is wanted. */
    static String dateLine(LocalDate today) {
        return "Today is " + DATE.format(today) + ".";
    }

    /** Reference text: every passage on its own paragraph, prefixed with its source's [id]. */
    static String reference(List<KeptSource> sources) {
        StringBuilder sb = new StringBuilder();
        for (KeptSource s : sources) {
            for (String p : s.passages()) {
                if (!sb.isEmpty()) {
                    sb.append("\n\n");
                }
                // a fence must open its own line for the model to read a code block
                String marker = marker(s);
                sb.append(PassageSplitter.isFence(p) && !marker.isEmpty() ? marker.strip() + "\n" : marker).append(p);
            }
        }
        return sb.toString();
    }

    static String marker(KeptSource s) {
        return s.id().isEmpty() ? "" : "[" + s.id() + "] ";
    }

    /** The instruction after the question, naming the ids actually present. */
    static String instruction(List<KeptSource> sources, boolean summary, boolean foreign) {
        List<String> ids = new ArrayList<>();
        for (KeptSource s : sources) {
            if (!s.id().isEmpty() && !ids.contains(s.id())) {
                ids.add(s.id());
            }
        }
        StringBuilder sb = new StringBuilder();
        sb.append(summary ? "Cover all the main points of the text above." : "Answer from the text above.");
        if (!ids.isEmpty()) {
            String example = ids.size() == 1 ? "[" + ids.get(0) + "]"
                    : "[" + ids.get(0) + "], [" + ids.get(1) + "]";
            sb.append(" Cite the sources you use as ").append(example).append(" after the sentences they support.");
        }
        if (!summary) {
            sb.append(" If the text does not contain the answer, say so.");
        }
        if (foreign) {
            sb.append(" Reply in the language of the question.");
        }
        return sb.toString();
    }

    /** "According to the above, what is X?" with the question's first letter lowered when that is safe. */
    static String according(String question) {
        String q = question.strip();
        if (q.length() > 1 && Character.isUpperCase(q.charAt(0)) && Character.isLowerCase(q.charAt(1))
                && !q.startsWith("I ") && !q.startsWith("I'")) {
            int sp = q.indexOf(' ');
            String first = sp < 0 ? q : q.substring(0, sp);
            // keep names and acronyms: only lower a common sentence opener
            if (first.chars().skip(1).allMatch(Character::isLowerCase) && FunctionWords.isCommonOpener(first)) {
                q = Character.toLowerCase(q.charAt(0)) + q.substring(1);
            }
        }
        return "According to the above, " + q;
    }

    static String withContext(String date, List<KeptSource> sources, String question, boolean summary,
                              boolean foreign) {
        StringBuilder sb = new StringBuilder();
        if (!date.isEmpty()) {
            sb.append(date).append("\n\n");
        }
        sb.append(reference(sources)).append("\n\n");
        sb.append(according(question)).append("\n");
        sb.append(instruction(sources, summary, foreign));
        return sb.toString();
    }

    /** The reference block for the system message (when the caller keeps the context there). */
    static String systemReference(String date, List<KeptSource> sources, boolean summary, boolean foreign) {
        StringBuilder sb = new StringBuilder();
        if (!date.isEmpty()) {
            sb.append(date).append("\n\n");
        }
        sb.append("Reference text for the user's next question:\n\n").append(reference(sources)).append("\n\n");
        sb.append(instruction(sources, summary, foreign));
        return sb.toString();
    }

    static String nothingRelevant(String date, boolean web, String question) {
        StringBuilder sb = new StringBuilder();
        if (!date.isEmpty()) {
            sb.append(date).append("\n\n");
        }
        sb.append(web
                ? "A web search for this question found nothing relevant. Answer from your own knowledge if you can,"
                  + " say that the search did not help, and say so if you do not know."
                : "The attached documents contain nothing relevant to this question. Answer from your own knowledge if"
                  + " you can and say that the documents do not cover it.");
        sb.append("\n\n").append(question.strip());
        return sb.toString();
    }

    static String plain(String date, String question) {
        return date.isEmpty() ? question.strip() : date + "\n\n" + question.strip();
    }
}
