package io.rkllm.server.pipeline.output;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * How a model family marks reasoning and tool calls in what it writes: the markers {@link OutputScanner} looks for,
 * as data. Most families fit in blocks (an opening marker, a closing one, what lies between); gpt-oss writes headers
 * ({@code <|channel|>analysis<|message|>}) whose text decides what the message after them is ({@link Headers}).
 *
 * @param reasoning the reasoning blocks ({@code <think>}/{@code </think>}); the first is the one a prompt opens
 * @param tools the tool-call blocks, each with the reader of its body
 * @param silent markers that are neither content nor anything else (Command R's {@code <|START_RESPONSE|>}): dropped
 * @param headers the headers of a family that writes them
 * @param callsEndReasoning a tool-call block ends reasoning left open (Qwen3.5 and Kimi K2 start calling without
 *                          closing their thinking); else a call's markers inside reasoning are reasoning
 * @param answerStart the marker the answer proper starts after, for a family that always writes one (gpt-oss's
 *                    final channel): a grammar for the answer starts there; else the first reasoning block's end
 *                    when the request thinks
 * @param callIds the form of the ids its calls are given (and the ids clients send back are put in)
 */
public record Syntax(List<Block> reasoning, List<ToolBlock> tools, List<String> silent, Optional<Headers> headers,
                     boolean callsEndReasoning, Optional<String> answerStart, CallIds callIds) {

    /** The form of a family's call ids. */
    public enum CallIds {
        /** OpenAI's: {@code call_} and 24 alphanumerics. */
        OPENAI,
        /** Mistral's: 9 alphanumerics, which its templates check (raise_exception otherwise). */
        NINE_ALPHANUMERICS
    }


    /**
     * Hermes' and Qwen's: {@code <think>} blocks, and one JSON call in each {@code <tool_call>} block; what most
     * models fine-tuned for tools write, and what the server reads when it knows nothing better of a model.
     */
    public static final Syntax HERMES = of(List.of(new Block("<think>", "</think>")),
            List.of(ToolBlock.between("<tool_call>", "</tool_call>", new ToolCallParser())));

    public Syntax {
        reasoning = List.copyOf(reasoning);
        tools = List.copyOf(tools);
        silent = List.copyOf(silent);
        Objects.requireNonNull(headers, "headers");
        Objects.requireNonNull(answerStart, "answerStart");
        Objects.requireNonNull(callIds, "callIds");
    }

    /** Blocks only: reasoning and tool calls. */
    public static Syntax of(List<Block> reasoning, List<ToolBlock> tools) {
        return new Syntax(reasoning, tools, List.of(), Optional.empty(), false, Optional.empty(), CallIds.OPENAI);
    }

    /** The same syntax with markers dropped from content. */
    public Syntax withSilent(String... markers) {
        List<String> all = new ArrayList<>(silent);
        all.addAll(List.of(markers));
        return new Syntax(reasoning, tools, all, headers, callsEndReasoning, answerStart, callIds);
    }

    /** The same syntax, a call ending reasoning left open. */
    public Syntax withCallsEndingReasoning() {
        return new Syntax(reasoning, tools, silent, headers, true, answerStart, callIds);
    }

    /** The same syntax, its calls' ids in another form. */
    public Syntax withCallIds(CallIds value) {
        return new Syntax(reasoning, tools, silent, headers, callsEndReasoning, answerStart, value);
    }

    /** Where a grammar for the answer starts: after {@link #answerStart}, else after reasoning when there is some. */
    public Optional<String> answerAfter(boolean thinking) {
        return answerStart.or(() -> thinking && !reasoning.isEmpty() ? Optional.of(reasoning.getFirst().close())
                : Optional.empty());
    }

    /** Every marker it names, once: what an engine must write as text when a model writes it as a special token. */
    public List<String> markers() {
        LinkedHashSet<String> all = new LinkedHashSet<>();
        for (Block b : reasoning) {
            all.add(b.open());
            all.add(b.close());
        }
        for (ToolBlock t : tools) {
            all.add(t.open());
            all.addAll(t.closes());
            all.addAll(t.reader().markers());
        }
        all.addAll(silent);
        headers.ifPresent(h -> {
            all.addAll(h.opens());
            all.add(h.close());
            all.addAll(h.rule().markers());
        });
        all.removeIf(String::isBlank);
        return List.copyOf(all);
    }

    /** A block of reasoning between two markers. */
    public record Block(String open, String close) {
        public Block {
            requireMarker(open);
            requireMarker(close);
        }
    }

    /**
     * A block of tool calls.
     *
     * @param open the marker that opens it
     * @param closes the markers that close it (the first found wins); none: it runs to the end of the output
     * @param reader reads the calls in the block's text
     * @param atStartOnly it opens only at the start of the output, after whitespace at most (Llama 3's bare JSON)
     * @param openInBody the opening marker is part of what the reader reads ({@code {} of a JSON call)
     */
    public record ToolBlock(String open, List<String> closes, CallReader reader, boolean atStartOnly,
                            boolean openInBody) {
        public ToolBlock {
            requireMarker(open);
            closes = List.copyOf(closes);
            closes.forEach(Syntax::requireMarker);
            Objects.requireNonNull(reader, "reader");
        }

        /** A block between two markers. */
        public static ToolBlock between(String open, String close, CallReader reader) {
            return new ToolBlock(open, List.of(close), reader, false, false);
        }

        /** A block from its marker to the end of the output. */
        public static ToolBlock toEnd(String open, CallReader reader) {
            return new ToolBlock(open, List.of(), reader, false, false);
        }
    }

    /**
     * Headers before each message of a family that writes them (gpt-oss's harmony format).
     *
     * @param opens the markers a header starts with, anywhere in the output
     * @param opensAtStart markers a header starts with only at the very start of the output (the prompt ended with
     *                     the start of a header: gpt-oss's {@code " to=functions.f"} right after {@code <|start|>assistant})
     * @param close the marker that ends every header
     * @param rule what the message after a header is
     */
    public record Headers(List<String> opens, List<String> opensAtStart, String close, HeaderRule rule) {
        public Headers {
            opens = List.copyOf(opens);
            opensAtStart = List.copyOf(opensAtStart);
            opens.forEach(Syntax::requireMarker);
            opensAtStart.forEach(Syntax::requireMarker);
            requireMarker(close);
            Objects.requireNonNull(rule, "rule");
        }
    }

    /** What a header's text makes of the message after it. */
    @FunctionalInterface
    public interface HeaderRule {
        /** @param header the header's text, its opening marker included, its closing marker not */
        Frame frame(String header);

        /** Further markers its frames name. */
        default List<String> markers() {
            return List.of();
        }
    }

    /** The message after a header. */
    public sealed interface Frame {
        /** The markers that end the message (none: the end of the output). */
        List<String> closes();

        /** Reasoning. */
        record Reasoning(List<String> closes) implements Frame {
        }

        /** Content, up to the next header (the syntax's silent markers drop what closes it). */
        record Content() implements Frame {
            @Override
            public List<String> closes() {
                return List.of();
            }
        }

        /** A call of the function {@code name}, its arguments the message's text (JSON). */
        record Call(String name, List<String> closes) implements Frame {
        }

        /** Something for no one here (a call to a tool the server does not offer, such as gpt-oss's built-in ones). */
        record Dropped(List<String> closes) implements Frame {
        }
    }

    private static void requireMarker(String marker) {
        if (marker == null || marker.isEmpty()) {
            throw new IllegalArgumentException("a marker must not be empty");
        }
    }
}
