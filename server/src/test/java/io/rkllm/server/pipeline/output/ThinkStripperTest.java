package io.rkllm.server.pipeline.output;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class ThinkStripperTest {

    @Test
    void textWithoutTagsIsOnlyTrimmed() {
        assertThat(ThinkStripper.strip("  Hello <b>world</b>\n")).isEqualTo("Hello <b>world</b>");
    }

    @Test
    void removesALeadingThinkBlockAndTheWhitespaceAfterIt() {
        assertThat(ThinkStripper.strip("<think>\nplan\n</think>\n\nThe answer.")).isEqualTo("The answer.");
    }

    @Test
    void removesEveryBlockAnywhere() {
        assertThat(ThinkStripper.strip("A <think>x</think> B<think>y</think>\nC")).isEqualTo("A BC");
        assertThat(ThinkStripper.strip("A <think>x</think>B <think>y</think>C")).isEqualTo("A B C");
    }

    @Test
    void removesALeadingUnopenedBlock() {
        assertThat(ThinkStripper.strip("implicit reasoning\n</think>\n\nAnswer")).isEqualTo("Answer");
        assertThat(ThinkStripper.strip("r1</think>A<think>r2</think>B")).isEqualTo("AB");
    }

    @Test
    void removesAnUnclosedBlockAtTheEnd() {
        assertThat(ThinkStripper.strip("Answer <think>cut off while")).isEqualTo("Answer");
    }

    @Test
    void onlyReasoningLeavesNothing() {
        assertThat(ThinkStripper.strip("<think>only</think>\n")).isEmpty();
    }

    @Test
    void keepsUnicode() {
        assertThat(ThinkStripper.strip("<think>🤔</think>答え😀")).isEqualTo("答え😀");
    }
}
