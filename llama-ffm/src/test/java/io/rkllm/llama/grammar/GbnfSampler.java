package io.rkllm.llama.grammar;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

/**
 * Random texts of a grammar's language, for checking that every one is valid: choices and repetition counts drawn
 * from a seeded generator, characters of a class drawn from a mix of ASCII, accented letters, CJK, emoji and
 * control characters. Past a depth it takes the shortest way out (each rule's shortest text, computed first), so
 * recursive grammars end.
 */
public final class GbnfSampler {
    private static final int[] CANDIDATES = candidates();
    private static final int DEEP = 12;

    private final Gbnf grammar;
    private final Map<String, Integer> shortest = new HashMap<>();
    private final Random random;

    public GbnfSampler(String grammar, long seed) {
        this.grammar = GbnfParser.parse(grammar);
        this.random = new Random(seed);
        boolean changed = true;
        while (changed) {
            changed = false;
            for (var rule : this.grammar.rules().entrySet()) {
                int length = length(rule.getValue());
                if (length < shortest.getOrDefault(rule.getKey(), Integer.MAX_VALUE)) {
                    shortest.put(rule.getKey(), length);
                    changed = true;
                }
            }
        }
    }

    public String sample() {
        StringBuilder out = new StringBuilder();
        alternatives(grammar.rules().get("root"), out, 0);
        return out.toString();
    }

    private void alternatives(Gbnf.Alternatives alternatives, StringBuilder out, int depth) {
        List<Gbnf.Sequence> choices = alternatives.choices();
        Gbnf.Sequence chosen;
        if (depth > DEEP) {
            chosen = choices.getFirst();
            for (Gbnf.Sequence s : choices) {
                if (length(s) < length(chosen)) {
                    chosen = s;
                }
            }
        } else {
            List<Gbnf.Sequence> finite = new ArrayList<>(choices.stream().filter(s -> length(s) < Integer.MAX_VALUE)
                    .toList());
            chosen = finite.get(random.nextInt(finite.size()));
        }
        for (Gbnf.Item item : chosen.items()) {
            item(item, out, depth);
        }
    }

    private void item(Gbnf.Item item, StringBuilder out, int depth) {
        switch (item) {
            case Gbnf.Literal literal -> out.append(literal.text());
            case Gbnf.CharClass c -> out.appendCodePoint(character(c));
            case Gbnf.AnyChar a -> out.appendCodePoint(CANDIDATES[random.nextInt(CANDIDATES.length)]);
            case Gbnf.RuleRef ref -> alternatives(grammar.rules().get(ref.name()), out, depth + 1);
            case Gbnf.Group group -> alternatives(group.alternatives(), out, depth + 1);
            case Gbnf.Repeat repeat -> {
                int count = repeat.min();
                if (depth <= DEEP) {
                    int room = repeat.max() == -1 ? 4 : Math.min(4, repeat.max() - repeat.min());
                    count += random.nextInt(room + 1);
                    if (random.nextInt(8) == 0 && repeat.max() != -1) {
                        count = repeat.max(); // the upper bound itself, sometimes
                    }
                }
                for (int i = 0; i < count; i++) {
                    item(repeat.item(), out, depth + 1);
                }
            }
        }
    }

    private int character(Gbnf.CharClass c) {
        if (!c.negated() && random.nextBoolean()) {
            int[] range = c.ranges().get(random.nextInt(c.ranges().size()));
            return range[0] + random.nextInt(range[1] - range[0] + 1);
        }
        for (int tries = 0; tries < 10_000; tries++) {
            int candidate = CANDIDATES[random.nextInt(CANDIDATES.length)];
            if (c.matches(candidate)) {
                return candidate;
            }
        }
        int[] range = c.ranges().getFirst();
        return range[0];
    }

    private int length(Gbnf.Alternatives alternatives) {
        int best = Integer.MAX_VALUE;
        for (Gbnf.Sequence s : alternatives.choices()) {
            best = Math.min(best, length(s));
        }
        return best;
    }

    private int length(Gbnf.Sequence sequence) {
        long total = 0;
        for (Gbnf.Item item : sequence.items()) {
            total += length(item);
        }
        return (int) Math.min(Integer.MAX_VALUE, total);
    }

    private int length(Gbnf.Item item) {
        return switch (item) {
            case Gbnf.Literal literal -> literal.text().length();
            case Gbnf.CharClass c -> 1;
            case Gbnf.AnyChar a -> 1;
            case Gbnf.RuleRef ref -> shortest.getOrDefault(ref.name(), Integer.MAX_VALUE);
            case Gbnf.Group group -> length(group.alternatives());
            case Gbnf.Repeat repeat -> repeat.min() == 0 ? 0
                    : (int) Math.min(Integer.MAX_VALUE, (long) repeat.min() * length(repeat.item()));
        };
    }

    private static int[] candidates() {
        StringBuilder all = new StringBuilder();
        for (char c = 0x20; c < 0x7F; c++) {
            all.append(c);
        }
        all.append("\t\n\r\u0000\u001f\u007f\u0085éüßñçÆ€中文字日本語한국\u2028\u2029\u00a0");
        all.appendCodePoint(0x1F600).appendCodePoint(0x1F680);
        return all.toString().codePoints().toArray();
    }
}
