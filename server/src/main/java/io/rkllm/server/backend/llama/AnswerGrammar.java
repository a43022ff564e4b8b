package io.rkllm.server.backend.llama;

import io.rkllm.llama.grammar.JsonSchemaGrammar;
import io.rkllm.llama.grammar.JsonWhitespace;
import io.rkllm.llama.grammar.UnsupportedSchemaException;
import io.rkllm.server.engine.contract.AnswerShape;
import java.util.Optional;

/**
 * The GBNF grammar of an answer's shape, and where it starts. A schema the grammar cannot express (a keyword it
 * does not translate) gets none: the model then writes freely and the pipeline checks and, once, asks again, as
 * on the RKLLM path.
 *
 * @param gbnf the grammar, root rule {@code root}
 * @param after the text after which it applies (the reasoning's end); empty when it applies from the first token
 */
record AnswerGrammar(String gbnf, Optional<String> after) {
    /** The grammar, or why there is none (for the log). */
    sealed interface Outcome {
        record Made(AnswerGrammar grammar) implements Outcome {
        }

        record Unsupported(String why) implements Outcome {
        }
    }

    static Outcome of(AnswerShape shape) {
        return switch (shape) {
            case AnswerShape.JsonObject o -> new Outcome.Made(new AnswerGrammar(
                    JsonSchemaGrammar.anyObject(JsonWhitespace.INDENTED), o.after()));
            case AnswerShape.JsonSchema s -> ofSchema(s);
        };
    }

    private static Outcome ofSchema(AnswerShape.JsonSchema shape) {
        try {
            return new Outcome.Made(new AnswerGrammar(JsonSchemaGrammar.of(shape.schema()), shape.after()));
        } catch (UnsupportedSchemaException e) {
            return new Outcome.Unsupported(e.getMessage());
        } catch (RuntimeException | StackOverflowError e) {
            // the converter's own limits (a grammar it made and refuses, a schema nested past the stack): the
            // answer is then written freely and checked, as for a keyword it does not translate
            return new Outcome.Unsupported("the grammar could not be made: " + e);
        }
    }
}
