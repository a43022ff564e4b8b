package io.rkllm.server.backend.llama;

import static org.assertj.core.api.Assertions.assertThat;

import io.rkllm.server.engine.contract.ReasoningBudget;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The budget's count in the loop's terms: tokens arrive as texts; the count starts after the opening marker (at once
 * when the prompt opened it), the closing words replace sampling once it is spent, and nothing is forced after the
 * model closed the reasoning itself or where it never opened one.
 */
class ReasoningLimitTest {
    /** A text's "tokens": one per character, each the character's code. */
    private static final ReasoningLimit.Tokenizer CHARS = (text, special) -> text.chars().toArray();

    /** The run of a model that writes {@code written} token by token, the limit forcing what it forces. */
    private static String run(ReasoningLimit limit, List<String> written) {
        StringBuilder answer = new StringBuilder();
        List<String> left = new ArrayList<>(written);
        while (!left.isEmpty()) {
            int forced = limit.forced(CHARS);
            String token = forced >= 0 ? Character.toString(forced) : left.removeFirst();
            answer.append(token);
            limit.wrote(answer, token.length());
        }
        return answer.toString();
    }

    private static List<String> tokens(String... texts) {
        return List.of(texts);
    }

    @Test
    void anOpenedReasoningIsClosedAfterItsBudget() {
        ReasoningLimit limit = new ReasoningLimit(new ReasoningBudget(3, "<think>", "</think>", true, "", List.of()));
        assertThat(run(limit, tokens("a", "b", "c", "d", "e"))).isEqualTo("abc</think>de");
    }

    @Test
    void theCountStartsAfterTheOpeningMarkerAndTheMessageComesBeforeTheClose() {
        ReasoningLimit limit = new ReasoningLimit(new ReasoningBudget(2, "<think>", "</think>", false, "Done.",
                List.of()));
        assertThat(run(limit, tokens("<think>", "x", "y", "z", "w"))).isEqualTo("<think>xyDone.</think>zw");
        // a marker split over tokens counts once whole
        ReasoningLimit split = new ReasoningLimit(new ReasoningBudget(1, "<think>", "</think>", false, "", List.of()));
        assertThat(run(split, tokens("<th", "ink>", "x", "y"))).isEqualTo("<think>x</think>y");
    }

    @Test
    void aBudgetOfNoneClosesAtOnce() {
        ReasoningLimit limit = new ReasoningLimit(new ReasoningBudget(0, "<think>", "</think>", true, "", List.of()));
        assertThat(run(limit, tokens("a", "b"))).isEqualTo("</think>ab");
    }

    @Test
    void nothingIsForcedWhenTheModelClosesInTimeOrNeverReasons() {
        ReasoningLimit closed = new ReasoningLimit(new ReasoningBudget(3, "<think>", "</think>", true, "", List.of()));
        assertThat(run(closed, tokens("a", "</think>", "b", "c", "d", "e"))).isEqualTo("a</think>bcde");
        ReasoningLimit never = new ReasoningLimit(new ReasoningBudget(1, "<think>", "</think>", false, "", List.of()));
        assertThat(run(never, tokens("a", "b", "c", "d"))).isEqualTo("abcd");
        // a marker later in an answer that did not start with it opens no reasoning
        ReasoningLimit later = new ReasoningLimit(new ReasoningBudget(1, "<think>", "</think>", false, "", List.of()));
        assertThat(run(later, tokens("\n", "a", "<think>", "b", "c"))).isEqualTo("\na<think>bc");
    }

    @Test
    void aCallThatEndsTheReasoningIsLeftWhole() {
        ReasoningLimit limit = new ReasoningLimit(new ReasoningBudget(2, "<think>", "</think>", true, "",
                List.of("<tool_call>")));
        assertThat(run(limit, tokens("a", "<tool_call>", "{", "\"", "n", "}"))).isEqualTo("a<tool_call>{\"n}");
    }

    @Test
    void theMessageIsTextAndTheMarkerTheModelsToken() {
        List<String> asked = new ArrayList<>();
        ReasoningLimit limit = new ReasoningLimit(new ReasoningBudget(0, "<think>", "</think>", true, "<|im_end|>",
                List.of()));
        limit.forced((text, special) -> {
            asked.add(text + (special ? " special" : " text"));
            return text.chars().toArray();
        });
        assertThat(asked).containsExactly("<|im_end|> text", "</think> special");
    }
}
