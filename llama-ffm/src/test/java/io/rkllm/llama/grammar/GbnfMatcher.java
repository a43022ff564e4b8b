package io.rkllm.llama.grammar;

import java.util.BitSet;
import java.util.HashMap;
import java.util.Map;

/**
 * Whether a text is in a grammar's language, by the grammar's own meaning (not llama.cpp's code): each item maps a
 * start position to the set of positions where it can end, memoised per rule and position. Fine for the short
 * texts of the tests; the grammars have no left recursion ({@link GbnfCheck}).
 */
public final class GbnfMatcher {
    private final Gbnf grammar;
    private int[] text;
    private boolean prefix;
    private int cut;
    private Map<String, BitSet> memo;

    public GbnfMatcher(String grammar) {
        GbnfCheck.check(grammar);
        this.grammar = GbnfParser.parse(grammar);
    }

    /** Whether {@code input} is in the grammar's language. */
    public boolean matches(String input) {
        return run(input, false).get(text.length);
    }

    /** Whether {@code input} is the beginning of a text in the grammar's language (or all of one). */
    public boolean matchesPrefix(String input) {
        BitSet ends = run(input, true);
        return ends.get(text.length) || ends.get(cut);
    }

    private BitSet run(String input, boolean prefixMode) {
        text = input.codePoints().toArray();
        prefix = prefixMode;
        cut = text.length + 1;
        memo = new HashMap<>();
        return rule("root", 0);
    }

    private BitSet rule(String name, int pos) {
        String key = name + "@" + pos;
        BitSet known = memo.get(key);
        if (known != null) {
            return known;
        }
        BitSet ends = alternatives(grammar.rules().get(name), pos);
        memo.put(key, ends);
        return ends;
    }

    private BitSet alternatives(Gbnf.Alternatives alternatives, int pos) {
        BitSet out = new BitSet();
        for (Gbnf.Sequence sequence : alternatives.choices()) {
            BitSet current = new BitSet();
            current.set(pos);
            for (Gbnf.Item item : sequence.items()) {
                current = after(item, current);
                if (current.isEmpty()) {
                    break;
                }
            }
            out.or(current);
        }
        return out;
    }

    private BitSet after(Gbnf.Item item, BitSet starts) {
        BitSet out = new BitSet();
        for (int p = starts.nextSetBit(0); p >= 0; p = starts.nextSetBit(p + 1)) {
            out.or(p == cut ? cutOnly() : item(item, p));
        }
        return out;
    }

    private BitSet cutOnly() {
        BitSet out = new BitSet();
        out.set(cut);
        return out;
    }

    private BitSet item(Gbnf.Item item, int pos) {
        BitSet out = new BitSet();
        if (prefix && pos == text.length && !(item instanceof Gbnf.RuleRef) && !(item instanceof Gbnf.Group)
                && !(item instanceof Gbnf.Repeat)) {
            out.set(cut); // the text ends where this item would start reading
        }
        switch (item) {
            case Gbnf.Literal literal -> {
                int[] cps = literal.text().codePoints().toArray();
                int n = Math.min(cps.length, text.length - pos);
                for (int i = 0; i < n; i++) {
                    if (text[pos + i] != cps[i]) {
                        return out;
                    }
                }
                if (n == cps.length) {
                    out.set(pos + cps.length);
                } else if (prefix) {
                    out.set(cut);
                }
            }
            case Gbnf.CharClass c -> {
                if (pos < text.length && c.matches(text[pos])) {
                    out.set(pos + 1);
                }
            }
            case Gbnf.AnyChar a -> {
                if (pos < text.length) {
                    out.set(pos + 1);
                }
            }
            case Gbnf.RuleRef ref -> out.or(rule(ref.name(), pos));
            case Gbnf.Group group -> out.or(alternatives(group.alternatives(), pos));
            case Gbnf.Repeat repeat -> {
                BitSet current = new BitSet();
                current.set(pos);
                if (repeat.min() == 0) {
                    out.set(pos);
                }
                BitSet seen = new BitSet();
                for (int count = 1; repeat.max() == -1 || count <= repeat.max(); count++) {
                    current = after(repeat.item(), current);
                    if (current.get(cut)) {
                        out.set(cut); // cut off inside a repetition: whatever count, it could go on
                        current.clear(cut);
                    }
                    if (count >= repeat.min()) {
                        out.or(current);
                        if (repeat.max() == -1) {
                            current.andNot(seen); // each repetition reads a character: only new positions matter
                            seen.or(current);
                        }
                    }
                    if (current.isEmpty()) {
                        break;
                    }
                }
            }
        }
        return out;
    }
}
