package io.rkllm.llama.grammar;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Checks a GBNF grammar before it reaches llama.cpp: it parses as llama.cpp parses it, has a {@code root} rule,
 * uses only rules it defines, and has no left recursion (a rule that can reach itself before reading a character,
 * which includes an unbounded repetition of something that can be empty). llama.cpp build 4916 reports none of
 * these to its caller: a grammar it cannot parse gives a sampler that constrains nothing, and left recursion is
 * not detected at all.
 */
public final class GbnfCheck {
    private GbnfCheck() {
    }

    /** @throws InvalidGrammarException saying what is wrong and where */
    public static void check(String grammar) {
        if (grammar.indexOf('\0') >= 0) {
            throw new InvalidGrammarException("the grammar contains a NUL character, which ends a C string");
        }
        Gbnf parsed = GbnfParser.parse(grammar);
        if (!parsed.rules().containsKey("root")) {
            throw new InvalidGrammarException("the grammar has no 'root' rule");
        }
        for (var rule : parsed.rules().entrySet()) {
            undefined(parsed, rule.getKey(), rule.getValue());
        }
        new LeftRecursion(parsed).check();
    }

    private static void undefined(Gbnf grammar, String rule, Gbnf.Alternatives body) {
        for (Gbnf.Sequence sequence : body.choices()) {
            for (Gbnf.Item item : sequence.items()) {
                undefinedIn(grammar, rule, item);
            }
        }
    }

    private static void undefinedIn(Gbnf grammar, String rule, Gbnf.Item item) {
        switch (item) {
            case Gbnf.RuleRef ref when !grammar.rules().containsKey(ref.name()) ->
                    throw new InvalidGrammarException("rule '" + rule + "' uses '" + ref.name()
                            + "', which is not defined");
            case Gbnf.Group group -> undefined(grammar, rule, group.alternatives());
            case Gbnf.Repeat repeat -> undefinedIn(grammar, rule, repeat.item());
            default -> {
            }
        }
    }

    /** Which rules can match the empty string, then a search for a rule reachable from itself at its start. */
    private static final class LeftRecursion {
        private final Gbnf grammar;
        private final Set<String> nullable = new HashSet<>();
        private final Map<String, Set<String>> leftEdges = new HashMap<>();

        LeftRecursion(Gbnf grammar) {
            this.grammar = grammar;
            boolean changed = true;
            while (changed) {
                changed = false;
                for (var rule : grammar.rules().entrySet()) {
                    if (!nullable.contains(rule.getKey()) && nullable(rule.getValue())) {
                        nullable.add(rule.getKey());
                        changed = true;
                    }
                }
            }
        }

        void check() {
            for (var rule : grammar.rules().entrySet()) {
                emptyRepeats(rule.getKey(), rule.getValue());
            }
            for (var rule : grammar.rules().entrySet()) {
                Set<String> edges = new LinkedHashSet<>();
                leftmost(rule.getKey(), rule.getValue(), edges);
                leftEdges.put(rule.getKey(), edges);
            }
            Map<String, Integer> state = new HashMap<>();
            for (String rule : grammar.rules().keySet()) {
                visit(rule, state, new ArrayList<>());
            }
        }

        private void visit(String rule, Map<String, Integer> state, List<String> path) {
            Integer seen = state.get(rule);
            if (seen != null && seen == 2) {
                return;
            }
            path.add(rule);
            if (seen != null) {
                List<String> cycle = path.subList(path.indexOf(rule), path.size());
                throw new InvalidGrammarException("the grammar is left-recursive: " + String.join(" -> ", cycle)
                        + " (llama.cpp cannot match a rule that reaches itself before reading a character)");
            }
            state.put(rule, 1);
            for (String next : leftEdges.get(rule)) {
                visit(next, state, path);
            }
            state.put(rule, 2);
            path.removeLast();
        }

        /** The rules {@code body} can start with, reading no character first. */
        private void leftmost(String rule, Gbnf.Alternatives body, Set<String> out) {
            for (Gbnf.Sequence sequence : body.choices()) {
                for (Gbnf.Item item : sequence.items()) {
                    leftmostOf(rule, item, out);
                    if (!nullable(item)) {
                        break;
                    }
                }
            }
        }

        private void leftmostOf(String rule, Gbnf.Item item, Set<String> out) {
            switch (item) {
                case Gbnf.RuleRef ref -> out.add(ref.name());
                case Gbnf.Group group -> leftmost(rule, group.alternatives(), out);
                case Gbnf.Repeat repeat -> leftmostOf(rule, repeat.item(), out);
                default -> {
                }
            }
        }

        /** llama.cpp makes {@code x*} a rule of x and then itself: left recursion if x can be empty. */
        private void emptyRepeats(String rule, Gbnf.Alternatives body) {
            for (Gbnf.Sequence sequence : body.choices()) {
                for (Gbnf.Item item : sequence.items()) {
                    emptyRepeatsIn(rule, item);
                }
            }
        }

        private void emptyRepeatsIn(String rule, Gbnf.Item item) {
            if (item instanceof Gbnf.Group group) {
                emptyRepeats(rule, group.alternatives());
            } else if (item instanceof Gbnf.Repeat repeat) {
                if (repeat.max() == -1 && nullable(repeat.item())) {
                    throw new InvalidGrammarException("rule '" + rule + "' repeats without bound something that "
                            + "can be empty (llama.cpp would loop on it)");
                }
                emptyRepeatsIn(rule, repeat.item());
            }
        }

        private boolean nullable(Gbnf.Alternatives alternatives) {
            for (Gbnf.Sequence sequence : alternatives.choices()) {
                if (sequence.items().stream().allMatch(this::nullable)) {
                    return true;
                }
            }
            return false;
        }

        private boolean nullable(Gbnf.Item item) {
            return switch (item) {
                case Gbnf.Literal literal -> literal.text().isEmpty();
                case Gbnf.CharClass c -> false;
                case Gbnf.AnyChar a -> false;
                case Gbnf.RuleRef ref -> nullable.contains(ref.name());
                case Gbnf.Group group -> nullable(group.alternatives());
                case Gbnf.Repeat repeat -> repeat.min() == 0 || nullable(repeat.item());
            };
        }
    }
}
