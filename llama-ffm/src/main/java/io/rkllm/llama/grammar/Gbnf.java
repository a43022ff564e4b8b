package io.rkllm.llama.grammar;

import java.util.List;
import java.util.Map;

/** A parsed GBNF grammar: rules of alternatives of sequences of items, as llama.cpp's grammar parser reads them. */
record Gbnf(Map<String, Alternatives> rules) {

    /** One of a rule's or a group's choices: items one after the other (none: the empty string). */
    record Sequence(List<Item> items) {
    }

    record Alternatives(List<Sequence> choices) {
    }

    sealed interface Item permits Literal, CharClass, AnyChar, RuleRef, Group, Repeat {
    }

    /** A string of code points. */
    record Literal(String text) implements Item {
    }

    /** {@code [...]} or {@code [^...]}: inclusive code point ranges, each {@code {from, to}}. */
    record CharClass(boolean negated, List<int[]> ranges) implements Item {
        boolean matches(int codePoint) {
            boolean in = false;
            for (int[] range : ranges) {
                if (codePoint >= range[0] && codePoint <= range[1]) {
                    in = true;
                    break;
                }
            }
            return in != negated;
        }
    }

    /** {@code .}: any one code point. */
    record AnyChar() implements Item {
    }

    record RuleRef(String name) implements Item {
    }

    record Group(Alternatives alternatives) implements Item {
    }

    /** {@code x*}, {@code x+}, {@code x?}, {@code x{m}}, {@code x{m,}}, {@code x{m,n}}; {@code max} -1 is unbounded. */
    record Repeat(Item item, int min, int max) implements Item {
    }
}
