package io.rkllm.server.backend.rkllm;

import static org.assertj.core.api.Assertions.assertThat;

import io.rkllm.server.backend.rkllm.RkllmCachePolicy.Action;
import io.rkllm.server.backend.rkllm.RkllmCachePolicy.Decision;
import io.rkllm.server.backend.rkllm.RkllmCachePolicy.Setup;
import io.rkllm.server.backend.rkllm.RkllmCachePolicy.SlotView;
import io.rkllm.server.engine.contract.cache.CacheDecision;
import io.rkllm.server.engine.contract.cache.CachedConversation;
import io.rkllm.server.engine.contract.cache.Keys;
import io.rkllm.server.engine.contract.cache.Trim;
import io.rkllm.server.engine.contract.ChatPrompt;
import io.rkllm.server.engine.contract.PromptTemplate;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * RKLLM's cache policy as the pure function it is: what each slot holds and the new prompt in, the decision out. No
 * pipeline, no runtime (the whole conversations of {@code pipeline/CachePolicyTest} drive it through the real
 * pipeline).
 */
class RkllmCachePolicyTest {
    private static final PromptTemplate TEMPLATE = new PromptTemplate("<s>sys</s>", "<u>", "</u><a>");
    private static final List<String> HISTORY = List.of("U:What is an NPU?", "A:A neural processor.");
    private static final RkllmCachePolicy POLICY = new RkllmCachePolicy(new RkllmCachePolicy.Settings(true, true,
            false));

    @Test
    void aNewChatOnEmptySlotsTakesTheFirstSetsItsTemplateAndSendsTheWholeConversation() {
        Decision d = POLICY.decide(List.of(SlotView.EMPTY, SlotView.EMPTY), prompt(List.of(), 4096));
        assertThat(d.slot()).isZero();
        assertThat(d.setup()).containsExactly(new Setup.Template(TEMPLATE));
        assertThat(d.action()).isEqualTo(new Action.Resend(false, false));
        assertThat(d.cache()).isEqualTo(new CacheDecision(0, new CacheDecision.Reuse.Nothing(), true));
    }

    @Test
    void aFollowUpOnTheSlotThatHoldsItsHistoryAppendsOnlyTheNewMessage() {
        SlotView holding = holding(HISTORY, 500);
        Decision d = POLICY.decide(List.of(SlotView.EMPTY, holding), prompt(HISTORY, 4096));
        assertThat(d.slot()).isEqualTo(1);
        assertThat(d.setup()).as("the template is set already").isEmpty();
        assertThat(d.action()).isEqualTo(new Action.Append(500, true, new Action.Resend(true, false)));
        assertThat(d.cache().reuse()).isEqualTo(new CacheDecision.Reuse.All(500));
    }

    @Test
    void aFollowUpThatNoLongerFitsBesideTheCacheIsResentKeepingTheSystemPrompt() {
        // 500 held + 10 new + 16 + the answer's 256 is more than a context of 700
        Decision d = POLICY.decide(List.of(holding(HISTORY, 500)), prompt(HISTORY, 700));
        assertThat(d.action()).isEqualTo(new Action.Resend(true, false));
        assertThat(d.cache().reuse()).isEqualTo(new CacheDecision.Reuse.SystemPrompt());
    }

    @Test
    void anEditedChatIsResentOnItsOwnSlotNotOverAnotherChat() {
        SlotView own = new SlotView(Optional.of(TEMPLATE), Optional.empty(), Optional.of(conversation(
                List.of("U:What is a TPU?", "A:A tensor processor."), 300)), 2, "chat-1");
        SlotView other = new SlotView(Optional.of(TEMPLATE), Optional.empty(), Optional.of(conversation(
                List.of("U:Hello", "A:Hi."), 200)), 1, "chat-2");
        Decision d = POLICY.decide(List.of(other, own), prompt(HISTORY, 4096));
        assertThat(d.slot()).isEqualTo(1);
        assertThat(d.action()).isEqualTo(new Action.Resend(true, false));
    }

    @Test
    void newToolsAreSetAndCostTheWholeCache() {
        ChatPrompt withTools = withTools(prompt(HISTORY, 4096), "[{\"type\":\"function\"}]");
        Decision d = POLICY.decide(List.of(holding(HISTORY, 500)), withTools);
        assertThat(d.setup()).containsExactly(new Setup.Tools("sys", "[{\"type\":\"function\"}]",
                RkllmCachePolicy.TOOL_RESPONSE_TAG));
        assertThat(d.action()).isEqualTo(new Action.Resend(false, false));
    }

    @Test
    void aBackgroundTaskRunsBesideTheMostRecentlyUsedSlotAndIsNotKept() {
        SlotView older = new SlotView(Optional.of(TEMPLATE), Optional.empty(), Optional.empty(), 1, "a");
        SlotView recent = new SlotView(Optional.of(TEMPLATE), Optional.of("[]"), Optional.empty(), 5, "b");
        ChatPrompt task = withTask(prompt(List.of(), 4096), new ChatPrompt.Task("### Task: a title", 80));
        Decision d = POLICY.decide(List.of(older, recent), task);
        assertThat(d.slot()).isEqualTo(1);
        assertThat(d.setup()).as("a task never changes the chat's tools").isEmpty();
        assertThat(d.action()).isEqualTo(new Action.Beside(80));
        assertThat(d.cache()).isEqualTo(new CacheDecision(1, new CacheDecision.Reuse.Beside(), false));
    }

    @Test
    void withTheCacheOffEveryTurnIsSentWholeOnAClearedSlotAndNotKept() {
        RkllmCachePolicy off = new RkllmCachePolicy(new RkllmCachePolicy.Settings(false, true, false));
        Decision d = off.decide(List.of(holding(HISTORY, 500)), prompt(HISTORY, 4096));
        assertThat(d.action()).isEqualTo(new Action.Uncached());
        assertThat(d.cache().kept()).isFalse();
    }

    private static SlotView holding(List<String> turns, int tokens) {
        return new SlotView(Optional.of(TEMPLATE), Optional.empty(), Optional.of(conversation(turns, tokens)), 1,
                "chat-1");
    }

    private static CachedConversation conversation(List<String> turns, int tokens) {
        return new CachedConversation("sys", Trim.NONE, Keys.digest(List.of()), turns, tokens, "");
    }

    /** The next turn of chat-1 after {@code history}: a new user message of 10 tokens, 256 kept for the answer. */
    private static ChatPrompt prompt(List<String> history, int context) {
        return new ChatPrompt("m", new ChatPrompt.Identity("chat-1", history, Trim.NONE, List.of("U:And a GPU?"),
                text -> Optional.of("A:" + text)), new ChatPrompt.Setup("sys", Optional.of(TEMPLATE), false,
                Optional.empty()), new ChatPrompt.Texts(new ChatPrompt.Part("user", "And a GPU?", List.of(),
                10), new ChatPrompt.Part("user", "User: ...", List.of(), 100)), Optional.empty(),
                new ChatPrompt.Settings(false, Optional.empty(), Optional.empty(), 256, context));
    }

    private static ChatPrompt withTools(ChatPrompt p, String tools) {
        ChatPrompt.Setup setup = p.setup();
        return new ChatPrompt(p.model(), p.identity(), new ChatPrompt.Setup(setup.systemPrompt(), setup.template(),
                setup.systemInText(), Optional.of(tools)), p.turns(), p.task(), p.settings());
    }

    private static ChatPrompt withTask(ChatPrompt p, ChatPrompt.Task task) {
        return new ChatPrompt(p.model(), p.identity(), p.setup(), p.turns(), Optional.of(task),
                p.settings());
    }
}
