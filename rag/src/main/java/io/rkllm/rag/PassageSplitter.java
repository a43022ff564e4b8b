package io.rkllm.rag;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Splits a source's text into passages of roughly {@code minChars..maxChars}: paragraphs are the
 * unit, short ones (headings, list items) are merged with what follows, long ones are cut at
 * sentence ends (Western and CJK punctuation), and a sentence longer than the limit at a space. A
 * code block fenced with ``` (the cleaner fences the listings of technical pages; Markdown documents
 * have their own) is one unit whatever its blank lines: it is never unwrapped, a long one is cut
 * between lines and each piece fenced again, and the line that introduces it ("Just change it to:")
 * stays with it.
 */
final class PassageSplitter {
    private static final Pattern SENTENCE_END = Pattern.compile("(?<=[.!?…][\"'”’)\\]]?)\\s+(?=\\S)|(?<=[。！？])");

    /** The fence that opens and closes a code block. */
    static final String FENCE = "```";

    private final int minChars;
    private final int maxChars;

    PassageSplitter(int minChars, int maxChars) {
        this.minChars = minChars;
        this.maxChars = maxChars;
    }

    List<String> split(String text) {
        List<String> pieces = new ArrayList<>();
        List<Boolean> code = new ArrayList<>();
        for (String[] unit : units(text.replace("\r\n", "\n"))) {
            if (unit[0] != null) {
                for (String c : cutCode(unit[0])) {
                    pieces.add(c);
                    code.add(true);
                }
                continue;
            }
            for (String para : unit[1].split("\n\\s*\n")) {
                String p = unwrap(para.strip());
                if (p.isEmpty()) {
                    continue;
                }
                for (String piece : p.length() <= maxChars ? List.of(p) : cut(p)) {
                    pieces.add(piece);
                    code.add(false);
                }
            }
        }
        // merge small neighbours; a heading always goes with what follows it, and so does the line before a listing
        List<String> out = new ArrayList<>();
        StringBuilder cur = new StringBuilder();
        for (int i = 0; i < pieces.size(); i++) {
            String piece = pieces.get(i);
            if (cur.isEmpty()) {
                cur.append(piece);
            } else if ((cur.length() < minChars || endsWithHeading(cur) || code.get(i) && endsWithColon(cur))
                    && cur.length() + 2 + piece.length() <= maxChars) {
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

    /** Whether the line opens or closes a fenced code block. */
    static boolean isFence(String line) {
        return line.strip().startsWith(FENCE);
    }

    /**
     * The text in order as units: {@code {codeBlock, null}} for a fenced block (fences included; one left
     * open is closed) and {@code {null, prose}} for the text between blocks.
     */
    private static List<String[]> units(String text) {
        List<String[]> units = new ArrayList<>();
        StringBuilder prose = new StringBuilder();
        StringBuilder block = null;
        for (String line : text.split("\n", -1)) {
            if (block == null && isFence(line)) {
                units.add(new String[] {null, prose.toString()});
                prose.setLength(0);
                block = new StringBuilder(line.strip());
            } else if (block != null) {
                block.append('\n').append(line);
                if (isFence(line)) {
                    units.add(new String[] {block.toString(), null});
                    block = null;
                }
            } else {
                prose.append(line).append('\n');
            }
        }
        if (block != null) {
            units.add(new String[] {block.append('\n').append(FENCE).toString(), null});
        }
        units.add(new String[] {null, prose.toString()});
        return units;
    }

    /** A fenced block within the limit as it is; a longer one cut between lines (at a blank line when one is near), each piece fenced. */
    private List<String> cutCode(String block) {
        if (block.length() <= maxChars) {
            return List.of(block);
        }
        String[] lines = block.split("\n", -1);
        String open = lines[0];
        int room = Math.max(40, maxChars - open.length() - FENCE.length() - 2);
        List<String> out = new ArrayList<>();
        StringBuilder cur = new StringBuilder();
        for (int i = 1; i < lines.length - 1; i++) {
            for (String part : lines[i].length() > room ? hardSplit(lines[i], room) : List.of(lines[i])) {
                boolean full = !cur.isEmpty() && cur.length() + 1 + part.length() > room;
                boolean pause = part.isBlank() && cur.length() >= room * 2 / 3;
                if (full || pause) {
                    addFenced(out, open, cur);
                    cur.setLength(0);
                }
                if (!(cur.isEmpty() && part.isBlank())) {
                    cur.append(cur.isEmpty() ? "" : "\n").append(part);
                }
            }
        }
        addFenced(out, open, cur);
        return out;
    }

    private static void addFenced(List<String> out, String open, CharSequence body) {
        String b = body.toString().stripTrailing();
        if (!b.isBlank()) {
            out.add(open + "\n" + b + "\n" + FENCE);
        }
    }

    /** Closes a code block that {@code text} leaves open (a passage cut short inside a listing). */
    static String closeFences(String text) {
        int fences = 0;
        for (String line : text.split("\n", -1)) {
            if (isFence(line)) {
                fences++;
            }
        }
        return fences % 2 == 0 ? text : text + "\n" + FENCE;
    }

    private static boolean endsWithColon(CharSequence s) {
        return s.length() > 0 && s.charAt(s.length() - 1) == ':';
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
        return last.length() < 80 && !SentenceMeasures.hasSentencePunctuation(last) && !last.endsWith(":") && !isFence(last);
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
        return hardSplit(s, maxChars);
    }

    private static List<String> hardSplit(String s, int maxChars) {
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
