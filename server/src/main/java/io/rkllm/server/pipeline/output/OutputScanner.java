package io.rkllm.server.pipeline.output;

import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * Classifies the model's streamed output into content, reasoning and tool calls, as its family marks them
 * ({@link Syntax}), and applies stop strings.
 *
 * <p>Feed the decoded pieces in order with {@link #feed(String)}, then call {@link #finish()} once at the end
 * of the output. Pieces may be split anywhere between characters: markers and stop strings split across pieces
 * are recognised. Plain text is passed on at once; only text that may be the start of a marker or stop string is
 * held back until it is resolved, so content never carries part of a marker.
 *
 * <ul>
 *   <li>A reasoning block (with {@link ScannerOptions#parseThink()}) becomes {@link OutputEvent.Reasoning}; it
 *       may occur anywhere. Whitespace right after its opening and its closing marker is dropped. With
 *       {@link ScannerOptions#startInsideThink()} the output starts inside the syntax's first reasoning block.</li>
 *   <li>A tool-call block (with {@link ScannerOptions#parseToolCalls()}) is buffered and read by its
 *       {@link CallReader} once it closes (or the output ends, for a block that runs to the end); each call of an
 *       offered tool becomes one {@link OutputEvent.ToolCall}; whitespace right after the closing marker is
 *       dropped. A block that is not well-formed, or calls a tool not offered, is passed on verbatim, markers
 *       included, as content. While the block is open, its calls are passed on as far as they are certain
 *       ({@link OutputEvent.CallDelta}, {@link StreamedCalls}); a call so begun ends as a call even if the rest of
 *       its block turns out not well-formed (its arguments then as far as they were certain, the block's text
 *       also passed on as content).</li>
 *   <li>A header (gpt-oss's {@code <|channel|>...<|message|>}) is never content: its text decides whether the
 *       message after it is reasoning, content, a call or something dropped ({@link Syntax.Frame}).</li>
 *   <li>Silent markers are dropped from content.</li>
 *   <li>A stop string found in content text (not inside reasoning, calls or headers) ends the output: the text
 *       before it is emitted, the stop string and everything after it never are, and {@link #stopped()}
 *       turns true (the caller then aborts generation). The earliest match wins; at the same position, the
 *       shortest stop string; a stop string beats a marker starting at the same position.</li>
 *   <li>At {@link #finish()} nothing is lost: held-back text is content, an unclosed reasoning block's text is
 *       reasoning (not a closing marker cut), an unclosed call block is calls when it reads as such, else content.</li>
 * </ul>
 *
 * <p>Consecutive content (or reasoning) from one call is merged into one event. Work per piece is linear in
 * the piece plus the held-back text, which is shorter than the longest marker or stop string (a tool-call block
 * or a header is buffered whole and searched once). Not thread-safe: one scanner per generation.
 */
public final class OutputScanner {

    public static final String THINK_OPEN = "<think>";
    public static final String THINK_CLOSE = "</think>";

    private enum Mode { CONTENT, REASONING, TOOL, HEADER, DROPPED }

    private final Syntax syntax;
    private final OfferedTools tools;
    private final boolean parseToolCalls;
    private final ContentMarkers markers;
    private final EventCollector events = new EventCollector();

    /** Text not yet passed on, starting in the current mode; in TOOL and HEADER mode, the text after the marker. */
    private final StringBuilder buffer = new StringBuilder();
    /** Scan position in {@link #buffer} while a call runs; 0 between calls. */
    private int pos;
    private Mode mode;
    /** The markers that end the current block, message or header. */
    private LiteralMatcher closeMatcher;
    /** In REASONING mode: how many of {@link #closeMatcher}'s patterns close it (the others open calls). */
    private int reasoningCloses;
    /** The marker that opened the current tool block or header (for a verbatim copy). */
    private String opened = "";
    /** In TOOL mode: the block being read, else the function a header named. */
    private BlockReading reading;
    /** In TOOL mode after a header: the header's text, for a verbatim copy. */
    private String headerText = "";
    /** Drop whitespace at the start of the next text (after a marker). */
    private boolean trimLeading;
    /** Nothing but whitespace has been written as content yet: markers that open only there may still match. */
    private boolean atStart;
    /** In TOOL and HEADER mode: where the search for the closing marker resumes. */
    private int searchFrom;
    /** The calls of the output's blocks, as they are passed on. */
    private final CallEmitter emitter;
    private String matchedStop;
    private boolean finished;

    public OutputScanner(ScannerOptions options) {
        this(options, ToolCallIds.random(options.syntax().callIds()));
    }

    public OutputScanner(ScannerOptions options, ToolCallIds ids) {
        Objects.requireNonNull(options, "options");
        this.emitter = new CallEmitter(events, Objects.requireNonNull(ids, "ids"));
        this.syntax = options.syntax();
        this.tools = options.tools();
        this.parseToolCalls = options.parseToolCalls();
        this.markers = ContentMarkers.of(options);
        this.atStart = !markers.start().isEmpty();
        this.mode = Mode.CONTENT;
        if (options.parseThink() && options.startInsideThink() && !syntax.reasoning().isEmpty()) {
            enterReasoning(List.of(syntax.reasoning().getFirst().close()));
        }
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
        if (mode == Mode.CONTENT && markers.content().isEmpty() && !atStart && !trimLeading && buffer.isEmpty()) {
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
        int cutMarker = mode == Mode.REASONING ? closeMatcher.partialAtEnd(buffer.substring(pos)) : 0;
        if (cutMarker >= 2) { // cut in the marker closing the reasoning ("</think"): markup; a lone "<" may be text
            buffer.setLength(buffer.length() - cutMarker);
        }
        scan(true);
        if (matchedStop == null) {
            if (mode == Mode.TOOL) {
                // read without the start of a closing marker the output was cut in; passed on with it
                String rest = buffer.substring(pos);
                String body = closeMatcher.withoutPartialMatch(rest);
                emitToolBlock(body, rest.substring(body.length()), true);
            }
            // an unclosed header (the output cut after "<|start|>assistant") is markup, not text: dropped
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
        return emitter.count();
    }

    /**
     * The output ended inside a call already passed on in part, its block unfinished: the call ends as far as it was
     * sent, and the answer was cut (finish reason {@code length} when the token limit did it).
     */
    public boolean callCut() {
        return emitter.cut();
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
                case REASONING -> scanReasoning(atEnd);
                case DROPPED -> scanDropped(atEnd);
                case TOOL, HEADER -> scanBlock();
            };
        }
        if (matchedStop != null) {
            buffer.setLength(0);
        } else {
            buffer.delete(0, pos);
            searchFrom = Math.max(0, searchFrom - pos);
        }
        pos = 0;
    }

    /** Returns whether the mode changed and scanning should go on. */
    private boolean scanContent(boolean atEnd) {
        if (!skipLeadingWhitespace()) {
            return false;
        }
        if (atStart) {
            int decided = scanStart(atEnd);
            if (decided != 0) {
                return decided > 0;
            }
        }
        LiteralMatcher.Hit hit = markers.content().scan(buffer, pos, atEnd);
        contentUpTo(hit.start());
        if (!hit.matched()) {
            return false;
        }
        String pattern = markers.content().pattern(hit.pattern());
        MarkerAction action = markers.contentActions().get(hit.pattern());
        if (action instanceof MarkerAction.Stop) {
            matchedStop = pattern;
            return false;
        }
        pos += pattern.length();
        open(action, pattern);
        return true;
    }

    /**
     * At the start of the output: a marker that opens only there, after whitespace at most. Returns 1 when one
     * matched (its mode entered), -1 when the text cannot tell yet (held back), 0 when none can match any more.
     */
    private int scanStart(boolean atEnd) {
        ContentMarkers.StartHit hit = markers.startHit(buffer, pos, atEnd);
        if (hit == ContentMarkers.StartHit.UNDECIDED) {
            return -1;
        }
        atStart = false;
        if (hit == ContentMarkers.StartHit.NONE) {
            return 0;
        }
        String pattern = markers.start().pattern(hit.pattern());
        pos = hit.at() + pattern.length();
        open(markers.startActions().get(hit.pattern()), pattern);
        return 1;
    }

    private void open(MarkerAction action, String marker) {
        switch (action) {
            case MarkerAction.Reasoning r -> enterReasoning(List.of(r.block().close()));
            case MarkerAction.Tool t -> {
                mode = Mode.TOOL;
                reading = BlockReading.of(t.block(), marker, tools);
                headerText = "";
                opened = marker;
                closeMatcher = new LiteralMatcher(t.block().closes());
                searchFrom = pos;
            }
            case MarkerAction.Header h -> {
                mode = Mode.HEADER;
                opened = marker;
                closeMatcher = new LiteralMatcher(List.of(syntax.headers().orElseThrow().close()));
                searchFrom = pos;
            }
            case MarkerAction.Silent s -> {
            }
            case MarkerAction.Stop s -> throw new IllegalStateException("a stop string opens nothing");
        }
    }

    private void enterReasoning(List<String> closes) {
        mode = Mode.REASONING;
        reasoningCloses = closes.size();
        closeMatcher = new LiteralMatcher(java.util.stream.Stream.concat(closes.stream(),
                markers.reasoningEnders().stream().map(t -> t.open())).toList());
        trimLeading = true;
    }

    private boolean scanReasoning(boolean atEnd) {
        if (!skipLeadingWhitespace()) {
            return false;
        }
        LiteralMatcher.Hit hit = closeMatcher.scan(buffer, pos, atEnd);
        events.reasoning(buffer, pos, hit.start());
        pos = hit.start();
        if (!hit.matched()) {
            return false;
        }
        mode = Mode.CONTENT;
        if (hit.pattern() >= reasoningCloses) {
            // a call's opening marker: reasoning ends there, the call is read as in content
            Syntax.ToolBlock block = markers.reasoningEnders().get(hit.pattern() - reasoningCloses);
            pos += block.open().length();
            open(new MarkerAction.Tool(block), block.open());
            return true;
        }
        pos += closeMatcher.pattern(hit.pattern()).length();
        trimLeading = true;
        return true;
    }

    private boolean scanDropped(boolean atEnd) {
        LiteralMatcher.Hit hit = closeMatcher.scan(buffer, pos, atEnd);
        pos = hit.start();
        if (!hit.matched()) {
            return false;
        }
        pos += closeMatcher.pattern(hit.pattern()).length();
        mode = Mode.CONTENT;
        return true;
    }

    /** A tool block or a header: buffered until its closing marker. */
    private boolean scanBlock() {
        if (closeMatcher.isEmpty()) {
            streamCalls(); // it runs to the end of the output
            return false;
        }
        LiteralMatcher.Hit hit = closeMatcher.scan(buffer, Math.max(pos, searchFrom), false);
        if (!hit.matched()) {
            searchFrom = hit.start();
            streamCalls();
            return false;
        }
        String body = buffer.substring(pos, hit.start());
        String close = closeMatcher.pattern(hit.pattern());
        pos = hit.start() + close.length();
        if (mode == Mode.HEADER) {
            enterFrame(opened + body, close);
            return true;
        }
        emitToolBlock(body, close, false);
        mode = Mode.CONTENT;
        trimLeading = true;
        return true;
    }

    private void enterFrame(String header, String close) {
        Syntax.Frame frame = syntax.headers().orElseThrow().rule().frame(header);
        switch (frame) {
            case Syntax.Frame.Reasoning r -> enterReasoning(r.closes());
            case Syntax.Frame.Content c -> mode = Mode.CONTENT;
            case Syntax.Frame.Dropped d -> {
                mode = Mode.DROPPED;
                closeMatcher = new LiteralMatcher(d.closes());
            }
            case Syntax.Frame.Call call -> {
                mode = Mode.TOOL;
                reading = BlockReading.header(call.name(), tools);
                headerText = header + close;
                opened = "";
                closeMatcher = new LiteralMatcher(call.closes());
                searchFrom = pos;
            }
        }
    }

    /** Skips whitespace after a marker; returns whether there is text left to scan. */
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

    private void contentUpTo(int end) {
        events.content(buffer, pos, end);
        pos = end;
    }

    /** An open tool block's calls, as far as they are certain (the start of its closing marker left out). */
    private void streamCalls() {
        if (mode != Mode.TOOL || !parseToolCalls || !emitter.due(buffer.length() - pos)) {
            return;
        }
        emitter.stream(reading, closeMatcher.withoutPartialMatch(buffer.substring(pos)));
    }

    /** A closed (or, at the end, unclosed) tool block: its calls, else its text as written. */
    private void emitToolBlock(String body, String close, boolean atEnd) {
        Optional<List<FunctionCall>> calls = parseToolCalls ? reading.calls(body) : Optional.empty();
        CallEmitter.Closed closed = emitter.closed(calls, atEnd);
        String verbatim = headerText + opened + body + close;
        if (closed == CallEmitter.Closed.BEGUN_THEN_TEXT
                || closed == CallEmitter.Closed.TEXT && !closeMatcher.isEmpty()) {
            events.content(verbatim); // nothing the model wrote is lost
        } else if (closed == CallEmitter.Closed.TEXT) {
            // a block that ran to the end and is no call (a JSON answer of a Llama, prose naming [TOOL_CALLS]) was
            // content all along: its stop strings apply, as they would have as it streamed
            ContentMarkers.Cut cut = markers.cutAtStop(verbatim);
            events.content(cut.before());
            matchedStop = cut.stop().orElse(null);
        }
    }
}
