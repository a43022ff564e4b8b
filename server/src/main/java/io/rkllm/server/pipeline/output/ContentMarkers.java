package io.rkllm.server.pipeline.output;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;

/**
 * The strings an output scanner looks for in content, and what each does: the stop strings (shortest first), then
 * the markers that open reasoning, a tool-call block or a header, or are dropped; and apart, the markers that open
 * something only at the start of the output.
 *
 * @param content the stop strings, then the markers, as one matcher; {@code contentActions} in the same order
 * @param stops the stop strings alone (shortest first)
 * @param start the markers that open something only at the start of the output; {@code startActions} in order
 * @param reasoningEnders the tool-call blocks whose opening marker ends reasoning (the syntax's, when calls are read)
 */
record ContentMarkers(LiteralMatcher content, List<MarkerAction> contentActions, LiteralMatcher stops,
                      LiteralMatcher start, List<MarkerAction> startActions, List<Syntax.ToolBlock> reasoningEnders) {

    static ContentMarkers of(ScannerOptions options) {
        List<String> patterns = new ArrayList<>(options.stopStrings());
        patterns.sort(Comparator.comparingInt(String::length));
        LiteralMatcher stops = new LiteralMatcher(List.copyOf(patterns));
        List<MarkerAction> actions = new ArrayList<>();
        patterns.forEach(p -> actions.add(new MarkerAction.Stop()));
        List<String> startPatterns = new ArrayList<>();
        List<MarkerAction> startActions = new ArrayList<>();
        if (options.parseThink()) {
            for (Syntax.Block block : options.syntax().reasoning()) {
                patterns.add(block.open());
                actions.add(new MarkerAction.Reasoning(block));
            }
        }
        if (options.parseToolCalls()) {
            for (Syntax.ToolBlock block : options.syntax().tools()) {
                (block.atStartOnly() ? startPatterns : patterns).add(block.open());
                (block.atStartOnly() ? startActions : actions).add(new MarkerAction.Tool(block));
            }
        }
        options.syntax().headers().ifPresent(h -> {
            h.opens().forEach(open -> {
                patterns.add(open);
                actions.add(new MarkerAction.Header());
            });
            h.opensAtStart().forEach(open -> {
                startPatterns.add(open);
                startActions.add(new MarkerAction.Header());
            });
        });
        for (String marker : options.syntax().silent()) {
            patterns.add(marker);
            actions.add(new MarkerAction.Silent());
        }
        List<Syntax.ToolBlock> enders = options.parseToolCalls() && options.syntax().callsEndReasoning()
                ? options.syntax().tools().stream().filter(t -> !t.atStartOnly()).toList() : List.of();
        return new ContentMarkers(new LiteralMatcher(patterns), List.copyOf(actions), stops,
                new LiteralMatcher(startPatterns), List.copyOf(startActions), enders);
    }

    /**
     * Where a marker that opens only at the output's start is (at {@code pos}, or after whitespace), and which one.
     *
     * @param at where it begins in the text
     * @param pattern its index in {@link #start()}
     */
    record StartHit(int at, int pattern) {
        /** The text cannot tell yet (held back). */
        static final StartHit UNDECIDED = new StartHit(-1, -1);
        /** None can match any more. */
        static final StartHit NONE = new StartHit(-2, -2);
    }

    /** At the start of the output: a marker that opens only there, after whitespace at most. */
    StartHit startHit(CharSequence text, int pos, boolean atEnd) {
        int first = pos;
        while (first < text.length() && Character.isWhitespace(text.charAt(first))) {
            first++;
        }
        if (first == text.length() && !atEnd) {
            return StartHit.UNDECIDED; // only whitespace so far: what follows decides
        }
        for (int at : first == pos ? new int[] {pos} : new int[] {pos, first}) {
            int p = start.matchAt(text, at, atEnd);
            if (p == LiteralMatcher.UNDECIDED) {
                return StartHit.UNDECIDED;
            }
            if (p >= 0) {
                return new StartHit(at, p);
            }
        }
        return StartHit.NONE;
    }

    /** A text cut at its first stop string: what came before it, and the stop string, if one is in it. */
    record Cut(String before, Optional<String> stop) {
    }

    /** {@code text}, whole, cut at its first stop string. */
    Cut cutAtStop(String text) {
        if (stops.isEmpty()) {
            return new Cut(text, Optional.empty());
        }
        LiteralMatcher.Hit hit = stops.scan(text, 0, true);
        return new Cut(text.substring(0, hit.start()),
                hit.matched() ? Optional.of(stops.pattern(hit.pattern())) : Optional.empty());
    }
}
