package io.rkllm.rag;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Splits a source's text into passages of roughly {@code minChars..maxChars}: paragraphs are the
 * unit, short ones (headings, list items) are merged with what follows, long ones are cut at
 * sentence ends (Western and CJK punctuation), and a sentence longer than the limit at a space.
 */
final class PassageSplitter {
    private static final Pattern SENTENCE_END = Pattern.compile("(?<=[.!?…][\"'”’)\\]]?)\\s+(?=\\S)|(?<=[。！？])");

    private final int minChars;
    private final int maxChars;

    PassageSplitter(int minChars, int maxChars) {
        this.minChars = minChars;
        this.maxChars = maxChars;
    }

    List<String> split(String text) {
        List<String> pieces = new ArrayList<>();
        for (String para : text.replace("\r\n", "\n").split("\n\\s*\n")) {
            String p = unwrap(para.strip());
            if (p.isEmpty()) {
                continue;
            }
            if (p.length() <= maxChars) {
                pieces.add(p);
            } else {
                pieces.addAll(cut(p));
            }
        }
        // merge small neighbours; a heading always goes with what follows it
        List<String> out = new ArrayList<>();
        StringBuilder cur = new StringBuilder();
        for (String piece : pieces) {
            if (cur.isEmpty()) {
                cur.append(piece);
            } else if ((cur.length() < minChars || endsWithHeading(cur)) && cur.length() + 2 + piece.length() <= maxChars) {
                cur.append("\n\n").append(piece);
            } else {
                out.add(cur.toString());
                cur.setLength(0);
                cur.append(piece);
            }
        }
        if (!cur.isEmpty()) {
            if (cur.length() < minChars / 2 && !out.isEmpty()
                    && out.get(out.size() - 1).length() + 2 + cur.length() <= maxChars) {
                out.set(out.size() - 1, out.get(out.size() - 1) + "\n\n" + cur);
            } else {
                out.add(cur.toString());
            }
        }
        return out;
    }

    /**
     * Joins the hard-wrapped lines of a paragraph ("...12GB of" / "GDDR5 RAM...") so the model reads
     * sentences, not fragments; list items, table cells and short lines keep their line breaks.
     */
    static String unwrap(String para) {
        if (para.indexOf('\n') < 0) {
            return para;
        }
        String[] lines = para.split("\n");
        StringBuilder sb = new StringBuilder(lines[0].strip());
        for (int i = 1; i < lines.length; i++) {
            String prev = lines[i - 1].strip();
            String line = lines[i].strip();
            char last = prev.isEmpty() ? '.' : prev.charAt(prev.length() - 1);
            boolean wrapped = prev.length() >= 40 && ".!?:;。！？：；".indexOf(last) < 0
                    && !line.isEmpty() && PageLines.listMarker(line) == 0 && PageLines.listMarker(prev) == 0;
            sb.append(wrapped ? " " : "\n").append(line);
        }
        return sb.toString();
    }

    private static boolean endsWithHeading(CharSequence s) {
        String str = s.toString();
        int nl = str.lastIndexOf('\n');
        String last = str.substring(nl + 1).strip();
        return last.length() < 80 && !PageLines.hasSentencePunctuation(last) && !last.endsWith(":");
    }

    /** Cuts a long paragraph at line breaks (lists, tables), then sentence ends, then spaces. */
    private List<String> cut(String p) {
        List<String> units = new ArrayList<>();       // pieces of at most maxChars
        List<Boolean> lineStart = new ArrayList<>();  // whether the piece starts a line of the paragraph
        for (String line : p.split("\n")) {
            boolean first = true;
            Matcher m = SENTENCE_END.matcher(line);
            int from = 0;
            List<String> sentences = new ArrayList<>();
            if (line.length() > maxChars) {
                while (m.find()) {
                    if (m.end() > from) {
                        sentences.add(line.substring(from, m.end()).strip());
                        from = m.end();
                    }
                }
            }
            sentences.add(line.substring(from).strip());
            for (String sentence : sentences) {
                for (String part : hardSplit(sentence)) {
                    if (!part.isEmpty()) {
                        units.add(part);
                        lineStart.add(first);
                        first = false;
                    }
                }
            }
        }
        List<String> out = new ArrayList<>();
        StringBuilder cur = new StringBuilder();
        for (int i = 0; i < units.size(); i++) {
            String u = units.get(i);
            if (!cur.isEmpty() && cur.length() + 1 + u.length() > maxChars) {
                out.add(cur.toString());
                cur.setLength(0);
            }
            if (!cur.isEmpty()) {
                cur.append(lineStart.get(i) ? "\n" : " ");
            }
            cur.append(u);
        }
        if (!cur.isEmpty()) {
            out.add(cur.toString());
        }
        return out;
    }

    /** A single sentence longer than maxChars: cut at the last space (or anywhere for CJK) before the limit. */
    private List<String> hardSplit(String s) {
        List<String> out = new ArrayList<>();
        String rest = s;
        while (rest.length() > maxChars) {
            int cut = rest.lastIndexOf(' ', maxChars);
            if (cut < maxChars / 2) {
                cut = maxChars;
                if (Character.isHighSurrogate(rest.charAt(cut - 1))) {
                    cut--;
                }
            }
            out.add(rest.substring(0, cut).strip());
            rest = rest.substring(cut).strip();
        }
        if (!rest.isEmpty()) {
            out.add(rest);
        }
        return out;
    }
}
