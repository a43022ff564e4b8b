package io.rkllm.server.pipeline.output;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * Classifies the model's streamed output into content, reasoning and tool calls, and applies stop strings.
 *
 * <p>Feed the decoded pieces in order with {@link #feed(String)}, then call {@link #finish()} once at the end
 * of the output. Pieces may be split anywhere between characters: tags and stop strings split across pieces
 * are recognised. Plain text is passed on at once; only text that may be the start of a tag or stop string is
 * held back until it is resolved.
 *
 * <ul>
 *   <li>{@code <think>...</think>} (with {@link ScannerOptions#parseThink()}) becomes {@link OutputEvent.Reasoning};
 *       it may occur anywhere. Whitespace right after {@code <think>} and right after {@code </think>} is
 *       dropped. With {@link ScannerOptions#startInsideThink()} the output starts as reasoning.</li>
 *   <li>{@code <tool_call>...</tool_call>} (with {@link ScannerOptions#parseToolCalls()}) is buffered and
 *       becomes one {@link OutputEvent.ToolCall}; whitespace right after {@code </tool_call>} is dropped. A
 *       block that is not a valid call is passed on verbatim, tags included, as content.</li>
 *   <li>A stop string found in content text (not inside think or tool-call blocks) ends the output: the text
 *       before it is emitted, the stop string and everything after it never are, and {@link #stopped()}
 *       turns true (the caller then aborts generation). The earliest match wins; at the same position, the
 *       shortest stop string; a stop string beats a tag starting at the same position.</li>
 *   <li>At {@link #finish()} nothing is dropped: held-back text is content, an unclosed think block's
 *       text is reasoning, and an unclosed tool call is a tool call when its JSON is complete, else content.</li>
 * </ul>
 *
 * <p>Consecutive content (or reasoning) from one call is merged into one event. Work per piece is linear in
 * the piece plus the held-back text, which is shorter than the longest tag or stop string (a tool call block
 * is buffered whole). Not thread-safe: one scanner per generation.
 */
public final class OutputScanner {

    public static final String THINK_OPEN = "<think>";
    public static final String THINK_CLOSE = "</think>";
    static final String TOOL_OPEN = "<tool_call>";
    static final String TOOL_CLOSE = "</tool_call>";

    private static final ToolCallParser DEFAULT_PARSER = new ToolCallParser();

    private enum Mode { CONTENT, THINK, TOOL }

    private final ToolCallParser parser;
    private final ToolCallIds ids;
    /** Stop strings (shortest first), then the tags that open a block. */
    private final LiteralMatcher contentMatcher;
    private final int stopCount;
    private final LiteralMatcher thinkMatcher = new LiteralMatcher(List.of(THINK_CLOSE));
    private final EventCollector events = new EventCollector();

    /** Text not yet passed on, starting in the current mode; in TOOL mode, the block's text after the tag. */
    private final StringBuilder buffer = new StringBuilder();
    /** Scan position in {@link #buffer} while a call runs; 0 between calls. */
    private int pos;
    private Mode mode;
    /** Drop whitespace at the start of the next text (after a tag). */
    private boolean trimLeading;
    /** In TOOL mode: where the search for the closing tag resumes. */
    private int toolSearchFrom;
    private int toolCallCount;
    private String matchedStop;
    private boolean finished;

    public OutputScanner(ScannerOptions options) {
        this(options, DEFAULT_PARSER, ToolCallIds.random());
    }

    public OutputScanner(ScannerOptions options, ToolCallParser parser, ToolCallIds ids) {
        Objects.requireNonNull(options, "options");
        this.parser = Objects.requireNonNull(parser, "parser");
        this.ids = Objects.requireNonNull(ids, "ids");
        List<String> patterns = new ArrayList<>(options.stopStrings());
        patterns.sort(Comparator.comparingInt(String::length));
        this.stopCount = patterns.size();
        if (options.parseThink()) {
            patterns.add(THINK_OPEN);
        }
        if (options.parseToolCalls()) {
            patterns.add(TOOL_OPEN);
        }
        this.contentMatcher = new LiteralMatcher(patterns);
        boolean insideThink = options.parseThink() && options.startInsideThink();
        this.mode = insideThink ? Mode.THINK : Mode.CONTENT;
        this.trimLeading = insideThink;
    }

    /**
     * Scans the next piece of output.
     *
     * @return the events it completes, possibly none; none once {@link #stopped()}
     * @throws IllegalStateException after {@link #finish()}
     */
    public List<OutputEvent> feed(String piece) {
        if (finished) {
            throw new IllegalStateException("feed() after finish()");
        }
        if (matchedStop != null || piece.isEmpty()) {
            return List.of();
        }
        if (mode == Mode.CONTENT && contentMatcher.isEmpty() && !trimLeading && buffer.isEmpty()) {
            return List.of(new OutputEvent.Content(piece)); // nothing to look for
        }
        buffer.append(piece);
        scan(false);
        return events.drain();
    }

    /**
     * Ends the output: flushes whatever is held back or unclosed. Later calls return nothing.
     *
     * @return the remaining events, possibly none
     */
    public List<OutputEvent> finish() {
        if (finished) {
            return List.of();
        }
        finished = true;
        if (matchedStop != null) {
            return List.of();
        }
        scan(true);
        if (matchedStop == null && mode == Mode.TOOL) {
            emitToolBlock(buffer.toString(), false);
        }
        buffer.setLength(0);
        return events.drain();
    }

    /** A stop string matched: generation should be aborted, and the finish reason is {@code stop}. */
    public boolean stopped() {
        return matchedStop != null;
    }

    /** The stop string that matched, or null. */
    public String matchedStop() {
        return matchedStop;
    }

    /** How many tool calls were emitted so far (when non-zero at the end, the finish reason is {@code tool_calls}). */
    public int toolCallCount() {
        return toolCallCount;
    }

    /** Characters held back (test hook). */
    int heldBack() {
        return buffer.length();
    }

    private void scan(boolean atEnd) {
        pos = 0;
        boolean more = true;
        while (more && matchedStop == null) {
            more = switch (mode) {
                case CONTENT -> scanContent(atEnd);
                case THINK -> scanThink(atEnd);
                case TOOL -> scanTool();
            };
        }
        if (matchedStop != null) {
            buffer.setLength(0);
        } else {
            buffer.delete(0, pos);
            toolSearchFrom = Math.max(0, toolSearchFrom - pos);
        }
        pos = 0;
    }

    /** Returns whether the mode changed and scanning should go on. */
    private boolean scanContent(boolean atEnd) {
        if (!skipLeadingWhitespace()) {
            return false;
        }
        LiteralMatcher.Hit hit = contentMatcher.scan(buffer, pos, atEnd);
        events.content(buffer, pos, hit.start());
        pos = hit.start();
        if (!hit.matched()) {
            return false;
        }
        String pattern = contentMatcher.pattern(hit.pattern());
        if (hit.pattern() < stopCount) {
            matchedStop = pattern;
            return false;
        }
        pos += pattern.length();
        if (pattern.equals(THINK_OPEN)) {
            mode = Mode.THINK;
            trimLeading = true;
        } else {
            mode = Mode.TOOL;
            toolSearchFrom = pos;
        }
        return true;
    }

    private boolean scanThink(boolean atEnd) {
        if (!skipLeadingWhitespace()) {
            return false;
        }
        LiteralMatcher.Hit hit = thinkMatcher.scan(buffer, pos, atEnd);
        events.reasoning(buffer, pos, hit.start());
        pos = hit.start();
        if (!hit.matched()) {
            return false;
        }
        pos += THINK_CLOSE.length();
        mode = Mode.CONTENT;
        trimLeading = true;
        return true;
    }

    private boolean scanTool() {
        int close = buffer.indexOf(TOOL_CLOSE, Math.max(pos, toolSearchFrom));
        if (close < 0) {
            toolSearchFrom = Math.max(pos, buffer.length() - TOOL_CLOSE.length() + 1);
            return false;
        }
        emitToolBlock(buffer.substring(pos, close), true);
        pos = close + TOOL_CLOSE.length();
        mode = Mode.CONTENT;
        trimLeading = true;
        return true;
    }

    /** Skips whitespace after a tag; returns whether there is text left to scan. */
    private boolean skipLeadingWhitespace() {
        if (trimLeading) {
            while (pos < buffer.length() && Character.isWhitespace(buffer.charAt(pos))) {
                pos++;
            }
            if (pos == buffer.length()) {
                return false;
            }
            trimLeading = false;
        }
        return pos < buffer.length();
    }

    private void emitToolBlock(String block, boolean closed) {
        String json = closed ? block : withoutPartialCloseTag(block);
        Optional<ToolCallParser.FunctionCall> call = parser.parse(json);
        if (call.isPresent()) {
            events.toolCall(new OutputEvent.ToolCall(toolCallCount++, ids.next(), call.get().name(),
                    call.get().argumentsJson()));
        } else {
            events.content(TOOL_OPEN + block + (closed ? TOOL_CLOSE : ""));
        }
    }

    /** An unclosed block may end with the start of the closing tag ("...}&lt;/tool_c"). */
    private static String withoutPartialCloseTag(String block) {
        for (int n = Math.min(TOOL_CLOSE.length() - 1, block.length()); n > 0; n--) {
            if (block.endsWith(TOOL_CLOSE.substring(0, n))) {
                return block.substring(0, block.length() - n);
            }
        }
        return block;
    }
}
