package io.rkllm.rag;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Finds retrieved context in a message text: Open WebUI's default RAG template, older and edited
 * templates, anything with {@code <source>} blocks or a {@code <context>} block. Returns the sources,
 * the user's question and the text that remains once the template is cut out.
 */
final class ContextDetector {

    /** What was found in one message. */
    record Found(List<RetrievedSource> sources, String remaining, String query, boolean defaultTemplate,
                 boolean mentionsDate, int contextChars) {
    }

    private static final Pattern CONTEXT = Pattern.compile("<context>((?:(?!<context>)[\\s\\S])*?)</context>",
            Pattern.CASE_INSENSITIVE);
    private static final Pattern SOURCE = Pattern.compile(
            "<source\\b([^>]*)>((?:(?!<source\\b)[\\s\\S])*?)</source>", Pattern.CASE_INSENSITIVE);
    private static final Pattern ATTR = Pattern.compile("([a-zA-Z_:-]+)\\s*=\\s*(?:\"([^\"]*)\"|'([^']*)')");
    private static final Pattern OLD_ID = Pattern.compile("<source_id>([\\s\\S]*?)</source_id>", Pattern.CASE_INSENSITIVE);
    private static final Pattern OLD_TEXT = Pattern.compile("<source_context>([\\s\\S]*?)</source_context>",
            Pattern.CASE_INSENSITIVE);
    private static final Pattern USER_QUERY = Pattern.compile("<user_query>([\\s\\S]*?)</user_query>",
            Pattern.CASE_INSENSITIVE);
    private static final Pattern LINE_QUERY = Pattern.compile("(?im)^\\s*(?:user )?(?:query|question)\\s*:\\s*(\\S.*)$");
    private static final Pattern TASK = Pattern.compile("(?m)^#{1,4}\\s*Task\\s*:?");
    /** Words of template instructions (not of a user's question). */
    private static final Pattern INSTRUCTION = Pattern.compile(
            "(?i)</?(?:context|source|user_query)|###|\\bcitations?\\b|\\bcite\\b|\\b(?:provided|following|given|this) context\\b"
            + "|\\bthe context\\b|\\bcontext (?:below|above)\\b|\\bcontext:\\s*$|\\b(?:sources?|documents?|search results?) (?:below|above)\\b"
            + "|\\bsource tag\\b|\\bid attribute\\b|\\bguidelines?\\b|\\breference information\\b|\\blearned knowledge\\b"
            + "|\\bXML tags?\\b|\\bthe user(?:'s)? (?:query|question)\\b");
    private static final Pattern DATE_WORDS = Pattern.compile(
            "(?i)\\b(?:current date|today|today's|date|current time|now is|\\d{4}-\\d{2}-\\d{2})\\b|\\{\\{CURRENT_DATE");
    static final String DEFAULT_TEMPLATE_MARK = "Respond to the user query using the provided context";

    Optional<Found> find(String text) {
        if (text == null || text.isEmpty()) {
            return Optional.empty();
        }
        String lower = text.toLowerCase(Locale.ROOT);
        if (!lower.contains("<context>") && !lower.contains("<source")) {
            return Optional.empty();
        }
        int ctxStart = -1;
        int ctxEnd = -1;
        String inner;
        Matcher cm = CONTEXT.matcher(text);
        int innerOffset = 0;
        while (cm.find()) { // the last complete <context> block
            ctxStart = cm.start();
            ctxEnd = cm.end();
            innerOffset = cm.start(1);
        }
        inner = ctxStart >= 0 ? text.substring(innerOffset, ctxEnd - "</context>".length()) : text;
        List<RetrievedSource> sources = new ArrayList<>();
        Matcher sm = SOURCE.matcher(inner);
        int firstSource = -1;
        int lastSource = -1;
        while (sm.find()) {
            if (firstSource < 0) {
                firstSource = sm.start();
            }
            lastSource = sm.end();
            sources.add(source(sm.group(1), sm.group(2)));
        }
        boolean identified = sources.stream().anyMatch(x -> !x.id().isEmpty() || !x.name().isEmpty());
        if (ctxStart < 0) {
            // bare <source> blocks: only Open WebUI's (with an id or a name), not an HTML <source src=...>
            if (sources.isEmpty() || !identified) {
                return Optional.empty();
            }
            ctxStart = firstSource;
            ctxEnd = lastSource;
        } else if (sources.isEmpty()) {
            // a <context> block alone: retrieved text if long or introduced as such, not "<context>x</context>" in a question
            String around = text.substring(0, ctxStart) + text.substring(ctxEnd);
            if (inner.strip().length() < 200 && !INSTRUCTION.matcher(around.replaceAll("(?i)</?context>", "")).find()) {
                return Optional.empty();
            }
            if (!inner.isBlank()) {
                sources.add(new RetrievedSource("", "", inner.strip(), false));
            }
        }
        // the template around the context
        int start = templateStart(text, ctxStart);
        int end = ctxEnd;
        String query = null;
        Matcher qm = USER_QUERY.matcher(text);
        while (qm.find()) {
            if (qm.start() >= ctxEnd || qm.end() <= start) {
                query = qm.group(1).strip();
                if (qm.start() >= ctxEnd) {
                    end = Math.max(end, qm.end());
                } else {
                    start = Math.min(start, qm.start());
                }
            }
        }
        end = templateEnd(text, end);
        if (query == null) { // legacy and edited templates: "Query: ..." after the context
            Matcher lq = LINE_QUERY.matcher(text.substring(ctxEnd, end));
            if (lq.find()) {
                query = lq.group(1).strip();
            }
        }
        String remaining = (text.substring(0, start).strip() + "\n\n" + text.substring(end).strip()).strip();
        String template = text.substring(start, ctxStart) + text.substring(ctxEnd, end);
        int contextChars = 0;
        for (RetrievedSource s : sources) {
            contextChars += s.text().length();
        }
        return Optional.of(new Found(sources, remaining, query, template.contains(DEFAULT_TEMPLATE_MARK),
                DATE_WORDS.matcher(template).find(), contextChars));
    }

    private static RetrievedSource source(String attrs, String body) {
        String id = "";
        String name = "";
        Matcher am = ATTR.matcher(attrs);
        while (am.find()) {
            String v = am.group(2) != null ? am.group(2) : am.group(3);
            switch (am.group(1).toLowerCase(Locale.ROOT)) {
                case "id" -> id = v;
                case "name", "title", "url", "source" -> {
                    if (name.isEmpty()) {
                        name = v;
                    }
                }
                default -> { }
            }
        }
        String text = body;
        Matcher oi = OLD_ID.matcher(body);
        if (oi.find()) { // Open WebUI 0.3-0.5: <source><source_id>..</source_id><source_context>..</source_context></source>
            if (id.isEmpty()) {
                String v = oi.group(1).strip();
                if (v.matches("\\d{1,4}")) {
                    id = v;
                } else if (name.isEmpty()) {
                    name = v;
                }
            }
            Matcher ot = OLD_TEXT.matcher(body);
            text = ot.find() ? ot.group(1) : OLD_ID.matcher(body).replaceAll("");
        }
        return new RetrievedSource(id, name, text.strip(), false);
    }

    /** Start of the template: a "### Task:" heading or instruction paragraphs right before the context. */
    private static int templateStart(String text, int ctxStart) {
        int start = ctxStart;
        Matcher t = TASK.matcher(text);
        int task = -1;
        while (t.find() && t.start() < ctxStart) {
            task = t.start();
        }
        if (task >= 0) {
            return task;
        }
        // walk back over paragraphs that read as template instructions
        while (start > 0) {
            int p = text.lastIndexOf("\n\n", start - 3);
            int from = p < 0 ? 0 : p + 2;
            if (from >= start) {
                break;
            }
            String para = text.substring(from, start);
            if (para.isBlank() || INSTRUCTION.matcher(para).find()) {
                start = from;
                if (p < 0) {
                    break;
                }
            } else {
                break;
            }
        }
        return start;
    }

    /** End of the template: instruction paragraphs right after the context (or the user query) belong to it. */
    private static int templateEnd(String text, int end) {
        while (end < text.length()) {
            int p = text.indexOf("\n\n", end + 1);
            int to = p < 0 ? text.length() : p;
            if (to <= end) {
                break;
            }
            String para = text.substring(end, to);
            if (para.isBlank() || INSTRUCTION.matcher(para).find()) {
                end = to;
                if (p < 0) {
                    break;
                }
            } else {
                break;
            }
        }
        return end;
    }
}
