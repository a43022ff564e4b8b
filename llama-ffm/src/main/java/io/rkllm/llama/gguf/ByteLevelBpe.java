package io.rkllm.llama.gguf;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A GPT-2 style byte-level BPE vocabulary learnt from a text: the 256 byte tokens (each byte as GPT-2's
 * printable stand-in character, a space as "Ġ"), then one token per merge, most frequent pair first (ties in
 * string order, so the result depends on the text alone). What {@code tokenizer.ggml.model = gpt2} expects.
 */
public record ByteLevelBpe(List<String> tokens, List<String> merges) {
    private static final Pattern WORDS = Pattern.compile(" ?[A-Za-z]+| ?[0-9]+| ?[^\\sA-Za-z0-9]+|\\s+");

    /** GPT-2's stand-in character for each byte value. */
    public static String[] byteSymbols() {
        String[] symbols = new String[256];
        int extra = 0;
        for (int b = 0; b < 256; b++) {
            boolean printable = (b >= '!' && b <= '~') || (b >= 0xA1 && b <= 0xAC) || (b >= 0xAE && b <= 0xFF);
            symbols[b] = printable ? String.valueOf((char) b) : String.valueOf((char) (256 + extra++));
        }
        return symbols;
    }

    public static ByteLevelBpe learn(String text, int maxMerges) {
        String[] symbols = byteSymbols();
        Map<List<String>, Integer> words = new LinkedHashMap<>();
        Matcher m = WORDS.matcher(text);
        while (m.find()) {
            List<String> word = new ArrayList<>();
            for (byte b : m.group().getBytes(StandardCharsets.UTF_8)) {
                word.add(symbols[b & 0xff]);
            }
            words.merge(word, 1, Integer::sum);
        }
        LinkedHashSet<String> tokens = new LinkedHashSet<>(List.of(symbols));
        List<String> merges = new ArrayList<>();
        while (merges.size() < maxMerges) {
            Map<String, Integer> pairs = new HashMap<>();
            for (var entry : words.entrySet()) {
                List<String> word = entry.getKey();
                for (int i = 0; i + 1 < word.size(); i++) {
                    pairs.merge(word.get(i) + " " + word.get(i + 1), entry.getValue(), Integer::sum);
                }
            }
            String best = null;
            int bestCount = 1;
            for (var pair : pairs.entrySet()) {
                int count = pair.getValue();
                if (count > bestCount || (count == bestCount && best != null && pair.getKey().compareTo(best) < 0)) {
                    best = pair.getKey();
                    bestCount = count;
                }
            }
            if (best == null) {
                break;
            }
            merges.add(best);
            String left = best.substring(0, best.indexOf(' '));
            String right = best.substring(best.indexOf(' ') + 1);
            tokens.add(left + right);
            Map<List<String>, Integer> merged = new LinkedHashMap<>();
            for (var entry : words.entrySet()) {
                merged.merge(apply(entry.getKey(), left, right), entry.getValue(), Integer::sum);
            }
            words = merged;
        }
        return new ByteLevelBpe(List.copyOf(tokens), List.copyOf(merges));
    }

    private static List<String> apply(List<String> word, String left, String right) {
        List<String> out = new ArrayList<>(word.size());
        for (int i = 0; i < word.size(); i++) {
            if (i + 1 < word.size() && word.get(i).equals(left) && word.get(i + 1).equals(right)) {
                out.add(left + right);
                i++;
            } else {
                out.add(word.get(i));
            }
        }
        return out;
    }
}
