package io.rkllm.rag;

import java.text.Normalizer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * Index terms of a text for lexical relevance: lower-cased, accent-folded words with a light
 * suffix-stripping stemmer, function words and question words removed; Chinese and Japanese text as
 * character bigrams (a single ideograph between non-CJK characters stays a unigram).
 */
final class Terms {
    private Terms() {
    }

    /** Words that shape a question but say nothing about its topic. */
    private static final Set<String> QUESTION_WORDS = new HashSet<>(Arrays.asList((
            "what whats which who whom whose when where why how hows tell explain describe please give show list "
            + "know does do did can could would should is are was were am be been me my i you your us we it its "
            + "about thing things something anything info information details detail say says said mean means "
            + "according above text article page source sources search web result results find found "
            + "qué que cómo como cuál cuándo dónde quién por porque quoi comment pourquoi quel quelle quels "
            + "où qui est sont était o que quem quando onde qual porque was wie warum wer wann wo welche welcher "
            + "ist sind gibt es erkläre erklär dimmi cosa come perché quando dove chi").split(" ")));

    private static final String CJK_QUESTION = "什么甚麼怎么怎麼为什么為什麼哪里哪裡谁誰吗嗎呢请請告诉告訴介绍介紹一下是的了呀吧多少如何何时何時";

    /** Function words of other languages that are content words in English ("pro", "son", "war"...). */
    private static final Set<String> CONTENT_IN_ENGLISH = Set.of("pro", "son", "con", "die", "war", "hat", "art", "bit",
            "man", "sin", "era", "fine", "come", "via", "ten", "tot", "dan", "sale", "gut", "kind");

    static List<String> of(String text) {
        List<String> out = new ArrayList<>();
        if (text == null || text.isEmpty()) {
            return out;
        }
        String t = fold(text.toLowerCase(Locale.ROOT));
        StringBuilder word = new StringBuilder();
        StringBuilder cjk = new StringBuilder();
        for (int i = 0; i <= t.length(); ) {
            int cp = i < t.length() ? t.codePointAt(i) : ' ';
            i += i < t.length() ? Character.charCount(cp) : 1;
            if (Scripts.isCjk(cp)) {
                flushWord(word, out);
                cjk.appendCodePoint(cp);
            } else if (Character.isLetterOrDigit(cp)) {
                flushCjk(cjk, out);
                word.appendCodePoint(cp);
            } else if ((cp == '\'' || cp == '.' || cp == '-') && !word.isEmpty() && i < t.length()
                    && Character.isLetterOrDigit(t.codePointAt(i)) && cp != '\'') {
                word.appendCodePoint(cp); // 3.5, covid-19, e-mail
            } else {
                flushWord(word, out);
                flushCjk(cjk, out);
            }
        }
        return out;
    }

    /** Content terms of a question: its terms minus question words. */
    static List<String> query(String question) {
        List<String> out = new ArrayList<>();
        for (String term : of(question)) {
            if (!QUESTION_WORDS.contains(term) && !(term.codePointCount(0, term.length()) <= 2
                    && term.codePoints().allMatch(c -> CJK_QUESTION.indexOf(c) >= 0))) {
                out.add(term);
            }
        }
        return out;
    }

    private static void flushWord(StringBuilder word, List<String> out) {
        if (word.isEmpty()) {
            return;
        }
        String w = word.toString();
        word.setLength(0);
        if (w.endsWith("'s")) {
            w = w.substring(0, w.length() - 2);
        }
        if ((FunctionWords.isFunctionWord(w) && !CONTENT_IN_ENGLISH.contains(w))
                || (w.length() == 1 && !Character.isDigit(w.charAt(0)))) {
            return;
        }
        out.add(stem(w));
    }

    private static void flushCjk(StringBuilder cjk, List<String> out) {
        if (cjk.isEmpty()) {
            return;
        }
        int[] cps = cjk.codePoints().toArray();
        cjk.setLength(0);
        if (cps.length == 1) {
            if (!FunctionWords.isChineseParticle(cps[0]) && !Scripts.isHiragana(cps[0])) {
                out.add(new String(cps, 0, 1));
            }
            return;
        }
        for (int k = 0; k + 1 < cps.length; k++) {
            if (Scripts.isHiragana(cps[k]) && Scripts.isHiragana(cps[k + 1])) {
                continue; // Japanese grammar, not topic
            }
            out.add(new String(cps, k, 2));
        }
    }

    /** A light stemmer for English and Romance plurals and verb endings; leaves short words alone. */
    static String stem(String w) {
        int n = w.length();
        if (n <= 3 || Character.isDigit(w.charAt(n - 1))) {
            return w;
        }
        if (n > 5 && w.endsWith("ies")) {
            return w.substring(0, n - 3) + "y";
        }
        if (n > 6 && w.endsWith("ing")) {
            return w.substring(0, n - 3);
        }
        if (n > 5 && w.endsWith("ed") && !w.endsWith("eed")) {
            return w.substring(0, n - 2);
        }
        if (n > 4 && w.endsWith("es") && (w.endsWith("ches") || w.endsWith("shes") || w.endsWith("sses") || w.endsWith("xes"))) {
            return w.substring(0, n - 2);
        }
        if (n > 3 && w.endsWith("s") && !w.endsWith("ss") && !w.endsWith("us") && !w.endsWith("is")) {
            return w.substring(0, n - 1);
        }
        return w;
    }

    private static String fold(String s) {
        String d = Normalizer.normalize(s, Normalizer.Form.NFD);
        StringBuilder b = new StringBuilder(d.length());
        for (int i = 0; i < d.length(); i++) {
            char c = d.charAt(i);
            if (Character.getType(c) != Character.NON_SPACING_MARK || isKanaMark(c)) {
                b.append(c);
            }
        }
        return Normalizer.normalize(b, Normalizer.Form.NFC);
    }

    private static boolean isKanaMark(char c) {
        return c == '\u3099' || c == '\u309A'; // keep Japanese voicing marks (が = か + ゙)
    }
}
