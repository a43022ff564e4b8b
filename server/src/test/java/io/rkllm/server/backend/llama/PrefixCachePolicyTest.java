package io.rkllm.server.backend.llama;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.rkllm.server.backend.llama.PrefixCachePolicy.Decision;
import io.rkllm.server.backend.llama.PrefixCachePolicy.SlotTokens;
import io.rkllm.server.engine.cache.CacheDecision;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The token-level policy in the decision words RKLLM's policy speaks too: no library, no model. */
class PrefixCachePolicyTest {
    private static final PrefixCachePolicy POLICY = new PrefixCachePolicy();

    @Test
    void aFollowUpKeepsTheWholeCacheAndDecodesOnlyItsNewTokens() {
        SlotTokens chat = new SlotTokens(new int[] {1, 2, 3, 4, 5}, 7);
        Decision d = POLICY.decide(List.of(SlotTokens.empty(), chat), new int[] {1, 2, 3, 4, 5, 6, 7});
        assertThat(d.cache()).isEqualTo(new CacheDecision(1, new CacheDecision.Reuse.All(5), true));
        assertThat(d.decode()).containsExactly(6, 7);
    }

    @Test
    void anEditedTurnCutsTheCacheAtTheFirstDifferentToken() {
        SlotTokens chat = new SlotTokens(new int[] {1, 2, 3, 4, 5, 6}, 7);
        Decision d = POLICY.decide(List.of(chat), new int[] {1, 2, 3, 9, 9});
        assertThat(d.cache().reuse()).isEqualTo(new CacheDecision.Reuse.Prefix(3));
        assertThat(d.keep()).isEqualTo(3);
        assertThat(d.decode()).containsExactly(9, 9);
    }

    @Test
    void theSlotSharingTheLongestPrefixWinsOverAMoreRecentOne() {
        SlotTokens older = new SlotTokens(new int[] {1, 2, 3, 4}, 1);
        SlotTokens recent = new SlotTokens(new int[] {1, 2}, 9);
        assertThat(POLICY.decide(List.of(recent, older), new int[] {1, 2, 3, 4, 8}).cache().slot()).isEqualTo(1);
    }

    @Test
    void anotherChatTakesAnUnusedSlotElseTheLeastRecentlyUsedOne() {
        SlotTokens a = new SlotTokens(new int[] {1, 2}, 5);
        SlotTokens b = new SlotTokens(new int[] {3, 4}, 2);
        Decision unused = POLICY.decide(List.of(a, SlotTokens.empty()), new int[] {7, 8});
        assertThat(unused.cache()).isEqualTo(new CacheDecision(1, new CacheDecision.Reuse.Nothing(), true));
        assertThat(POLICY.decide(List.of(a, b), new int[] {7, 8}).cache().slot()).isEqualTo(1);
    }

    @Test
    void aRegeneratedAnswerStillDecodesThePromptsLastTokenForItsLogits() {
        SlotTokens chat = new SlotTokens(new int[] {1, 2, 3, 4, 5}, 3);
        Decision d = POLICY.decide(List.of(chat), new int[] {1, 2, 3});
        assertThat(d.cache().reuse()).isEqualTo(new CacheDecision.Reuse.Prefix(2));
        assertThat(d.decode()).containsExactly(3);
    }

    @Test
    void anEmptyPromptIsNoDecision() {
        assertThatThrownBy(() -> POLICY.decide(List.of(SlotTokens.empty()), new int[0]))
                .isInstanceOf(IllegalArgumentException.class);
    }
}
