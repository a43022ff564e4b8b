package io.rkllm.rag;

import static org.assertj.core.api.Assertions.assertThat;

import io.rkllm.rag.FollowUpDetector.Kind;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class FollowUpDetectorTest {
    private final FollowUpDetector d = new FollowUpDetector();

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "thanks!|ACKNOWLEDGEMENT",
        "Thank you very much.|ACKNOWLEDGEMENT",
        "ok, got it|ACKNOWLEDGEMENT",
        "danke schön|ACKNOWLEDGEMENT",
        "ありがとうございます|ACKNOWLEDGEMENT",
        "tell me more|CONTINUATION",
        "Can you tell me more?|CONTINUATION",
        "why?|CONTINUATION",
        "go on|CONTINUATION",
        "继续|CONTINUATION",
        "What did you mean by the second point?|ABOUT_ANSWER",
        "translate that to Spanish|ABOUT_ANSWER",
        "Summarize your answer in two sentences|ABOUT_ANSWER",
        "explain it in simpler terms|ABOUT_ANSWER",
        "What is the population of Lyon?|NONE",
        "How many teraflops does the PS4 Pro have?|NONE",
        "Thanks, and what about the price in Europe?|NONE",
    })
    void classifies(String question, Kind kind) {
        assertThat(d.classify(question, "Some previous answer.")).isEqualTo(kind);
    }

    @ParameterizedTest
    @CsvSource({"thanks!", "tell me more"})
    void nothingToFollowWithoutAPreviousAnswer(String question) {
        assertThat(d.classify(question, null)).isEqualTo(Kind.NONE);
        assertThat(d.classify(question, " ")).isEqualTo(Kind.NONE);
    }
}
