package io.rkllm.server.pipeline.output;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * The strings an output scanner looks for in content, and what each does: the stop strings (shortest first), then
 * the markers that open reasoning, a tool-call block or a header, or are dropped; and apart, the markers that open
 * something only at the start of the output.
 *
 * @param content the stop strings, then the markers, as one matcher; {@code contentActions} in the same order
 * @param stops the stop strings alone (shortest first)
 * @param start the markers that open something only at the start of the output; {@code startActions} in order
 */
record ContentMarkers(LiteralMatcher content, List<MarkerAction> contentActions, LiteralMatcher stops,
                      LiteralMatcher start, List<MarkerAction> startActions) {

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
        return new ContentMarkers(new LiteralMatcher(patterns), List.copyOf(actions), stops,
                new LiteralMatcher(startPatterns), List.copyOf(startActions));
    }
}
