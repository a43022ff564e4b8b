package io.rkllm.rag;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class TermsTest {
    @Test
    void queryTermsDropQuestionAndFunctionWords() {
        assertThat(Terms.query("What is the price of the Xbox One X compared to the PS4 Pro?"))
                .containsExactly("price", "xbox", "one", "compar", "ps4", "pro");
    }

    @Test
    void stemsPluralsAndFoldsAccents() {
        assertThat(Terms.of("Bridges cafés")).containsExactly("bridge", "cafe");
        assertThat(Terms.of("bridge")).containsExactly("bridge");
        assertThat(Terms.of("studies")).containsExactly("study");
    }

    @Test
    void chineseBecomesBigrams() {
        assertThat(Terms.of("美樹營地")).containsExactly("美樹", "樹營", "營地");
        assertThat(Terms.query("美樹營地在哪裡?")).contains("美樹", "營地");
    }
}
