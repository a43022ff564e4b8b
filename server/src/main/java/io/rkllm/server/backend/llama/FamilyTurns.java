package io.rkllm.server.backend.llama;

import io.rkllm.server.engine.contract.ChatPrompt;
import io.rkllm.server.engine.contract.PromptTemplate;
import java.util.List;

/**
 * A conversation in a family's chat template (the pipeline's, for a GGUF model whose own template does not render
 * here), turn by turn as the model generated it: each user turn wrapped in the template's prefix and postfix, each
 * earlier answer as the model wrote it after that postfix, closed by the end-of-turn token the model ends answers
 * with. So a follow-up's text begins with exactly the text the sequence holds (the prompt, the answer, its end),
 * and reuses all of it; the pipeline's flattened text (every earlier turn inside one user turn, as RKLLM resends a
 * conversation) would share only the system prompt with it.
 */
final class FamilyTurns {
    private final String answerEnd;

    /**
     * @param endOfTurn the text of the token the model ends an answer with (its end-of-turn token, else its end of
     *                  text); empty when it has none
     */
    FamilyTurns(String endOfTurn) {
        this.answerEnd = endOfTurn;
    }

    /**
     * The text of {@code messages} in {@code template}, ready for the next answer.
     *
     * @param systemText the system prompt to put before the first turn's text, for a template without a system
     *                   block (empty otherwise)
     */
    String render(PromptTemplate template, String systemText, List<ChatPrompt.Message> messages) {
        String end = answerEnd(template);
        StringBuilder out = new StringBuilder(template.systemPrompt());
        StringBuilder turn = new StringBuilder(systemText.isEmpty() ? "" : systemText + "\n\n");
        boolean open = false;
        for (ChatPrompt.Message m : messages) {
            if (m.role().equals("assistant")) {
                if (open) {
                    out.append(template.promptPrefix()).append(turn).append(template.promptPostfix());
                    turn.setLength(0);
                    open = false;
                }
                out.append(answer(m)).append(end);
                continue;
            }
            if (open) {
                turn.append("\n\n");
            }
            turn.append(switch (m.role()) {
                case "tool" -> "Tool result: ";
                case "system" -> "System: ";
                default -> "";
            }).append(m.content());
            open = true;
        }
        if (open) {
            out.append(template.promptPrefix()).append(turn).append(template.promptPostfix());
        }
        return out.toString();
    }

    /**
     * What closes an answer: the end-of-turn token's text, and the whitespace the template writes after it where
     * its postfix starts with the same token (ChatML's {@code <|im_end|>\n}, Phi-3's {@code <|end|>\n}).
     */
    private String answerEnd(PromptTemplate template) {
        String postfix = template.promptPostfix();
        if (answerEnd.isEmpty() || !postfix.startsWith(answerEnd)) {
            return answerEnd;
        }
        int i = answerEnd.length();
        while (i < postfix.length() && Character.isWhitespace(postfix.charAt(i))) {
            i++;
        }
        return postfix.substring(0, i);
    }

    /** An answer as the model writes it: its text, then its tool calls in the Hermes form the families use. */
    private static String answer(ChatPrompt.Message m) {
        StringBuilder out = new StringBuilder(m.content());
        for (ChatPrompt.ToolCall call : m.toolCalls()) {
            out.append(out.isEmpty() ? "" : "\n").append("<tool_call>\n{\"name\": \"").append(call.name())
                    .append("\", \"arguments\": ").append(call.argumentsJson()).append("}\n</tool_call>");
        }
        return out.toString();
    }
}
