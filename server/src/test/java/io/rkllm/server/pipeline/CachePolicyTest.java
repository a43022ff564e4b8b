package io.rkllm.server.pipeline;

import static io.rkllm.server.pipeline.PlannerBench.assistant;
import static io.rkllm.server.pipeline.PlannerBench.request;
import static io.rkllm.server.pipeline.PlannerBench.system;
import static io.rkllm.server.pipeline.PlannerBench.user;
import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The KV cache policy without a server or native code: for each way a conversation goes on (a follow-up, an
 * edit, a regenerated answer, a changed system prompt, another chat, a background task, an overflow, a
 * restart), what the planner sends to which slot, and what it clears.
 */
class CachePolicyTest {
    private static final String SYSTEM = "You are terse.";

    @TempDir
    Path dir;

    private PlannerBench bench(int slots) {
        return new PlannerBench(dir, slots, 4096, Map.of());
    }

    @Test
    void firstTurnSendsTheWholeConversationOnACleanSlot() {
        try (PlannerBench b = bench(1)) {
            PlannerBench.Turn t = b.turn(request(system(SYSTEM), user("What is an NPU?")), "A neural processor.");
            assertThat(t.calls()).containsExactly("template system=" + templateLength(), "clear keep_system=false");
            assertThat(t.prompt()).isEqualTo("What is an NPU?");
            assertThat(t.plan().request().keepHistory()).isTrue();
            assertThat(t.plan().reusedTokens()).isZero();
        }
    }

    @Test
    void aFollowUpSendsOnlyTheNewMessageOnTopOfTheCache() {
        try (PlannerBench b = bench(1)) {
            b.turn(request(system(SYSTEM), user("What is an NPU?")), "A neural processor.");
            int cached = b.slots.getFirst().size;
            PlannerBench.Turn t = b.turn(request(system(SYSTEM), user("What is an NPU?"),
                    assistant("A neural processor."), user("And a GPU?")), "A graphics processor.");
            assertThat(t.prompt()).isEqualTo("And a GPU?");
            assertThat(t.plan().request().role()).isEqualTo("user");
            assertThat(t.plan().request().keepHistory()).isTrue();
            assertThat(t.plan().reusedTokens()).isEqualTo(cached);
            assertThat(t.calls()).as("nothing cleared or reset").isEmpty();
        }
    }

    @Test
    void thinkBlocksTheClientSendsBackStillMatchTheCache() {
        try (PlannerBench b = bench(1)) {
            b.turn(request(user("Why?")), "<think>hmm</think>Because.");
            PlannerBench.Turn t = b.turn(request(user("Why?"), assistant("Because."), user("Sure?")), "Yes.");
            assertThat(t.prompt()).isEqualTo("Sure?");
        }
    }

    @Test
    void anEditedEarlierMessageResendsTheConversationKeepingTheSystemPrompt() {
        try (PlannerBench b = bench(1)) {
            b.turn(request(system(SYSTEM), user("What is an NPU?")), "A neural processor.");
            b.turn(request(system(SYSTEM), user("What is an NPU?"), assistant("A neural processor."),
                    user("And a GPU?")), "A graphics processor.");
            PlannerBench.Turn t = b.turn(request(system(SYSTEM), user("What is a TPU?"),
                    assistant("A neural processor."), user("And a GPU?")), "A graphics processor.");
            assertThat(t.calls()).containsExactly("clear keep_system=true");
            assertThat(t.prompt()).contains("User: What is a TPU?").contains("Assistant: A neural processor.")
                    .endsWith("User: And a GPU?");
            assertThat(t.plan().reusedTokens()).isEqualTo(FakeSlot.SYSTEM_TOKENS);
        }
    }

    @Test
    void aRegeneratedAnswerResendsOnTheSameSlot() {
        try (PlannerBench b = bench(2)) {
            PlannerBench.Turn first = b.turn(request(system(SYSTEM), user("Tell a joke.")), "A joke.");
            PlannerBench.Turn again = b.turn(request(system(SYSTEM), user("Tell a joke.")), "Another joke.");
            assertThat(again.slot()).isEqualTo(first.slot());
            assertThat(again.calls()).containsExactly("clear keep_system=true");
            assertThat(again.prompt()).isEqualTo("Tell a joke.");
            assertThat(b.slots.get(1 - first.slot()).size).as("the other slot untouched").isZero();
        }
    }

    @Test
    void aChangedSystemPromptClearsTheWholeCache() {
        try (PlannerBench b = bench(1)) {
            b.turn(request(system(SYSTEM), user("Hi.")), "Hello.");
            PlannerBench.Turn t = b.turn(request(system("You are verbose."), user("Hi."), assistant("Hello."),
                    user("How are you?")), "Fine.");
            assertThat(t.calls()).containsExactly("template system=" + templateLength("You are verbose."),
                    "clear keep_system=false");
            assertThat(t.prompt()).startsWith("User: Hi.").endsWith("User: How are you?");
            assertThat(t.plan().reusedTokens()).isZero();
        }
    }

    @Test
    void twoChatsTakeTurnsOnTwoSlotsAndBothStayCached() {
        try (PlannerBench b = bench(2)) {
            PlannerBench.Turn a1 = b.turn(request(user("Chat A starts.")), "A1.");
            PlannerBench.Turn b1 = b.turn(request(user("Chat B starts.")), "B1.");
            assertThat(b1.slot()).isNotEqualTo(a1.slot());
            PlannerBench.Turn a2 = b.turn(request(user("Chat A starts."), assistant("A1."), user("A goes on.")),
                    "A2.");
            PlannerBench.Turn b2 = b.turn(request(user("Chat B starts."), assistant("B1."), user("B goes on.")),
                    "B2.");
            assertThat(a2.slot()).isEqualTo(a1.slot());
            assertThat(a2.prompt()).isEqualTo("A goes on.");
            assertThat(b2.slot()).isEqualTo(b1.slot());
            assertThat(b2.prompt()).isEqualTo("B goes on.");
        }
    }

    @Test
    void withOneSlotAnotherChatTakesItAndTheFirstIsResentWhenItComesBack() {
        try (PlannerBench b = bench(1)) {
            b.turn(request(user("Chat A starts.")), "A1.");
            b.turn(request(user("Chat B starts.")), "B1.");
            PlannerBench.Turn a2 = b.turn(request(user("Chat A starts."), assistant("A1."), user("A goes on.")),
                    "A2.");
            assertThat(a2.prompt()).isEqualTo("User: Chat A starts.\n\nAssistant: A1.\n\nUser: A goes on.");
            assertThat(a2.calls()).contains("clear keep_system=true");
        }
    }

    @Test
    void aBackgroundTaskBetweenTurnsLeavesTheChatCached() {
        try (PlannerBench b = bench(1)) {
            b.turn(request(system(SYSTEM), user("What is an NPU?")), "A neural processor.");
            int cached = b.slots.getFirst().size;
            PlannerBench.Turn task = b.turn(request(user("### Task:\nGenerate 1-3 broad tags.\n### Chat History:\n"
                    + "<chat_history>\nUSER: What is an NPU?\n</chat_history>")), "{\"tags\": [\"Hardware\"]}");
            assertThat(task.plan().request().keepHistory()).as("the task's tokens are dropped").isFalse();
            assertThat(task.calls()).doesNotContain("clear keep_system=false", "clear keep_system=true");
            assertThat(b.slots.getFirst().size).isEqualTo(cached);
            PlannerBench.Turn next = b.turn(request(system(SYSTEM), user("What is an NPU?"),
                    assistant("A neural processor."), user("Thanks.")), "You are welcome.");
            assertThat(next.prompt()).isEqualTo("Thanks.");
            assertThat(next.plan().reusedTokens()).isEqualTo(cached);
        }
    }

    @Test
    void anOverflowLeavesOutTheOldestExchangesAndTheNextTurnIsIncrementalAgain() {
        try (PlannerBench b = new PlannerBench(dir, 1, 1024, Map.of())) {
            String u1 = "first " + "a".repeat(600);
            String a1 = "reply " + "b".repeat(600);
            String u2 = "second " + "c".repeat(600);
            String a2 = "reply " + "d".repeat(600);
            PlannerBench.Turn t = b.turn(request(user(u1), assistant(a1), user(u2), assistant(a2),
                    user("third question")), "third answer");
            assertThat(t.chat().droppedMessages()).isPositive();
            assertThat(t.prompt()).doesNotContain(u1).endsWith("User: third question");
            PlannerBench.Turn next = b.turn(request(user(u1), assistant(a1), user(u2), assistant(a2),
                    user("third question"), assistant("third answer"), user("fourth")), "ok");
            assertThat(next.prompt()).isEqualTo("fourth");
            assertThat(next.calls()).isEmpty();
        }
    }

    @Test
    void afterARestartTheFirstRequestResendsItsWholeHistory() {
        try (PlannerBench b = bench(1)) {
            PlannerBench.Turn t = b.turn(request(system(SYSTEM), user("Hi."), assistant("Hello."),
                    user("Still there?")), "Yes.");
            assertThat(t.prompt()).isEqualTo("User: Hi.\n\nAssistant: Hello.\n\nUser: Still there?");
            assertThat(t.plan().reusedTokens()).isZero();
        }
    }

    @Test
    void anAbortedRunIsNotTrustedByTheNextTurn() {
        try (PlannerBench b = bench(1)) {
            b.turn(request(user("Write a long story.")), "Once upon", true);
            PlannerBench.Turn t = b.turn(request(user("Write a long story."), assistant("Once upon"),
                    user("Go on.")), "a time.");
            assertThat(t.prompt()).startsWith("User: Write a long story.");
            assertThat(t.calls()).as("what the cache holds is unknown: all of it goes").contains(
                    "clear keep_system=false");
        }
    }

    @Test
    void aCacheSizeThatDisagreesWithTheBookkeepingIsNotReused() {
        try (PlannerBench b = bench(1)) {
            b.turn(request(user("Hi.")), "Hello.");
            b.slots.getFirst().reportedSize = b.slots.getFirst().size + 7;
            PlannerBench.Turn t = b.turn(request(user("Hi."), assistant("Hello."), user("Bye.")), "Bye.");
            assertThat(t.prompt()).isEqualTo("User: Hi.\n\nAssistant: Hello.\n\nUser: Bye.");
        }
    }

    @Test
    void withTheCacheOffEveryTurnIsSentWholeAndNothingIsKept() {
        try (PlannerBench b = new PlannerBench(dir, 1, 4096, Map.of("cache.enabled", "false"))) {
            b.turn(request(user("Hi.")), "Hello.");
            PlannerBench.Turn t = b.turn(request(user("Hi."), assistant("Hello."), user("Bye.")), "Bye.");
            assertThat(t.prompt()).isEqualTo("User: Hi.\n\nAssistant: Hello.\n\nUser: Bye.");
            assertThat(t.plan().request().keepHistory()).isFalse();
            assertThat(t.calls()).containsExactly("clear keep_system=false");
        }
    }

    @Test
    void aClientGivenChatIdKeepsAnEditedChatOnItsOwnSlot() {
        try (PlannerBench b = bench(2)) {
            PlannerBench.Turn a = b.turn(request(Optional.of("chat:a"), user("Chat A.")), "A.");
            b.turn(request(Optional.of("chat:b"), user("Chat B.")), "B.");
            PlannerBench.Turn edited = b.turn(request(Optional.of("chat:a"), user("Chat A, edited.")), "A'.");
            assertThat(edited.slot()).isEqualTo(a.slot());
        }
    }

    private static int templateLength() {
        return templateLength(SYSTEM);
    }

    @Test
    void anAnswerThatIsOnlyReasoningIsNotKeptSoTheNextTurnStartsOnACleanCache() {
        try (PlannerBench b = bench(1)) {
            // runtime 1.3.0's FINISH at </think>: the cache holds reasoning the client got as an empty answer
            b.turn(request(user("Why?")), "<think>\nhmm, the sky.\n");
            PlannerBench.Turn t = b.turn(request(user("Why?"), assistant(""), user("Sure?")), "Yes.");
            assertThat(t.calls()).containsExactly("clear keep_system=false");
            assertThat(t.prompt()).contains("User: Why?").endsWith("User: Sure?");
            PlannerBench.Turn next = b.turn(request(user("Why?"), assistant(""), user("Sure?"), assistant("Yes."),
                    user("Thanks.")), "You're welcome.");
            assertThat(next.prompt()).as("a whole answer is kept as before").isEqualTo("Thanks.");
        }
    }

    /** The length of the qwen2.5 template's system part around {@code system}. */
    private static int templateLength(String system) {
        return ("<|im_start|>system\n" + system + "<|im_end|>\n").length();
    }
}
