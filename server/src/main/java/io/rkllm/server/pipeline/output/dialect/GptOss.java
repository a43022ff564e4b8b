package io.rkllm.server.pipeline.output.dialect;

import io.rkllm.server.pipeline.output.Syntax;
import io.rkllm.server.pipeline.output.Syntax.Frame;
import java.util.List;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * gpt-oss's harmony format: every message has a header, {@code <|start|>assistant}, then
 * {@code <|channel|>analysis} (reasoning), {@code final} or {@code commentary} (the answer, or a preamble to calls),
 * and a recipient for a call ({@code to=functions.NAME}, in the role's part or the channel's, a
 * {@code <|constrain|>json} after it), up to {@code <|message|>}; the message runs to {@code <|end|>} ({@code <|call|>}
 * and {@code <|return|>} end the generation). The prompt ends with {@code <|start|>assistant}, so the output may start
 * with the recipient. A call to a tool not among the functions (its built-in {@code browser}, {@code python}) is
 * dropped, as llama-server does.
 */
final class GptOss implements Dialect {
    static final String START = "<|start|>";
    static final String CHANNEL = "<|channel|>";
    static final String MESSAGE = "<|message|>";
    static final String END = "<|end|>";
    static final String CALL = "<|call|>";
    static final String RETURN = "<|return|>";
    static final String CONSTRAIN = "<|constrain|>";
    private static final Pattern RECIPIENT = Pattern.compile("\\bto=([^\\s<]+)");
    private static final Pattern CHANNEL_NAME = Pattern.compile(Pattern.quote(CHANNEL) + "\\s*(\\w+)");

    private static final Syntax SYNTAX = new Syntax(List.of(), List.of(), List.of(END, RETURN, CALL),
            Optional.of(new Syntax.Headers(List.of(START, CHANNEL), List.of(" to="), MESSAGE, new Rule())), false,
            Optional.of(CHANNEL + "final" + MESSAGE), Syntax.CallIds.OPENAI);

    @Override
    public String name() {
        return "gpt-oss";
    }

    @Override
    public Syntax syntax() {
        return SYNTAX;
    }

    @Override
    public boolean writtenBy(String template) {
        return template.contains(CHANNEL);
    }

    @Override
    public boolean alwaysReasons() {
        return true;
    }

    @Override
    public boolean opensReasoning(String prompt) {
        return false;
    }

    /** What a header makes of its message. */
    private static final class Rule implements Syntax.HeaderRule {
        @Override
        public Frame frame(String header) {
            Matcher recipient = RECIPIENT.matcher(header);
            String to = null;
            while (recipient.find()) {
                if (!recipient.group(1).equals("assistant")) {
                    to = recipient.group(1);
                }
            }
            List<String> closes = List.of(END, CALL, RETURN);
            if (to != null) {
                return to.startsWith("functions.") ? new Frame.Call(to.substring("functions.".length()), closes)
                        : new Frame.Dropped(closes);
            }
            String channel = "";
            Matcher m = CHANNEL_NAME.matcher(header);
            while (m.find()) {
                channel = m.group(1);
            }
            return channel.equals("analysis") ? new Frame.Reasoning(List.of(END)) : new Frame.Content();
        }

        @Override
        public List<String> markers() {
            return List.of(CONSTRAIN);
        }
    }
}
