package io.rkllm.server.pipeline;

import static io.rkllm.server.pipeline.PlannerBench.assistant;
import static io.rkllm.server.pipeline.PlannerBench.request;
import static io.rkllm.server.pipeline.PlannerBench.system;
import static io.rkllm.server.pipeline.PlannerBench.user;
import static org.assertj.core.api.Assertions.assertThat;

import io.rkllm.server.engine.contract.cache.Trim;
import io.rkllm.server.pipeline.request.ChatMessage;
import io.rkllm.server.pipeline.request.Role;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
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
    void anOverflowLeavesOutOldExchangesInOneLargeStepAndTheTurnsAfterItAreIncremental() {
        try (PlannerBench b = bench(1)) {
            PlannerBench.Chat chat = b.chat(SYSTEM);
            List<PlannerBench.Turn> turns = new ArrayList<>();
            int n = 0;
            while (turns.size() < 2 || !resent(turns.getLast())) {
                n++;
                turns.add(chat.say(question(n), answer(n)));
            }
            PlannerBench.Turn overflow = turns.getLast();
            assertThat(turns.subList(1, turns.size() - 1)).as("incremental until the context is full")
                    .allSatisfy(t -> assertThat(resent(t)).isFalse());
            Trim trim = overflow.chat().trim();
            assertThat(trim.count()).as("whole exchanges").isPositive().isEven();
            assertThat(overflow.calls()).containsExactly("clear keep_system=true");
            assertThat(overflow.prompt()).startsWith("User: " + question(trim.count() / 2 + 1))
                    .doesNotContain(question(trim.count() / 2) + "\n").endsWith("User: " + question(n));
            assertThat(overflow.chat().notes()).contains(new PreparedChat.Header("X-RKLLM-Context-Trimmed",
                    trim.count() + " earliest messages left out"));
            // one large step: what is kept fills about half of the room for the prompt, not all of it
            assertThat(overflow.chat().promptEstimate()).isLessThanOrEqualTo((4096 - 512) / 2)
                    .isGreaterThan((4096 - 512) / 4);
            for (int i = 1; i <= 3; i++) {
                n++;
                PlannerBench.Turn next = chat.say(question(n), answer(n));
                assertThat(next.prompt()).isEqualTo(question(n));
                assertThat(next.calls()).isEmpty();
                assertThat(next.chat().trim()).as("the same messages left out, and the header says so").isEqualTo(trim);
                assertThat(next.chat().notes()).contains(new PreparedChat.Header("X-RKLLM-Context-Trimmed",
                        trim.count() + " earliest messages left out"));
            }
        }
    }

    @Test
    void theNextOverflowGoesOnFromTheLastTrimAndNoTwoTurnsInARowResend() {
        try (PlannerBench b = bench(1)) {
            PlannerBench.Chat chat = b.chat(SYSTEM);
            List<PlannerBench.Turn> turns = new ArrayList<>();
            for (int n = 1; n <= 60; n++) {
                turns.add(chat.say(question(n), answer(n)));
            }
            List<Integer> resends = new ArrayList<>();
            for (int i = 1; i < turns.size(); i++) {
                if (resent(turns.get(i))) {
                    resends.add(i);
                }
            }
            assertThat(resends).as("several overflows in 60 turns").hasSizeGreaterThanOrEqualTo(3);
            for (int k = 1; k < resends.size(); k++) {
                assertThat(resends.get(k) - resends.get(k - 1)).as("turns between two resends").isGreaterThanOrEqualTo(4);
                Trim before = turns.get(resends.get(k - 1)).chat().trim();
                Trim after = turns.get(resends.get(k)).chat().trim();
                assertThat(after.count()).isGreaterThan(before.count());
                assertThat(after.covers(before)).isTrue();
                // the turn before the overflow still had the previous trim: nothing changes between overflows
                assertThat(turns.get(resends.get(k) - 1).chat().trim()).isEqualTo(before);
            }
            int resent = 0;
            int prefilled = 0;
            int minimum = 0;
            for (PlannerBench.Turn t : turns) {
                prefilled += t.prefilled();
                minimum += t.minimum();
                resent += t != turns.getFirst() && resent(t) ? 1 : 0;
            }
            assertThat(resent).isEqualTo(resends.size());
            assertThat((double) prefilled / minimum).as("total prefill against the new messages alone").isLessThan(2);
        }
    }

    @Test
    void anEditInALongChatKeepsWhatWasLeftOutAndGoesOnIncrementally() {
        try (PlannerBench b = bench(1)) {
            PlannerBench.Chat chat = b.chat(SYSTEM);
            int n = pastTheFirstOverflow(chat);
            Trim trim = chat.say(question(++n), answer(n)).chat().trim();
            int keptQuestion = trim.count() / 2 + 1;
            chat.messages.removeLast();
            chat.editUser(keptQuestion - 1, "An edited question.");
            PlannerBench.Turn edited = chat.answer(answer(n));
            assertThat(edited.calls()).containsExactly("clear keep_system=true");
            assertThat(edited.prompt()).startsWith("User: An edited question.").endsWith("User: " + question(n));
            assertThat(edited.chat().trim()).isEqualTo(trim);
            PlannerBench.Turn next = chat.say(question(++n), answer(n));
            assertThat(next.prompt()).isEqualTo(question(n));
            assertThat(next.chat().trim()).isEqualTo(trim);
        }
    }

    @Test
    void aRegeneratedAnswerInALongChatKeepsWhatWasLeftOut() {
        try (PlannerBench b = bench(1)) {
            PlannerBench.Chat chat = b.chat(SYSTEM);
            int n = pastTheFirstOverflow(chat);
            PlannerBench.Turn last = chat.say(question(++n), answer(n));
            String again = chat.dropLastExchange();
            PlannerBench.Turn regenerated = chat.say(again, "Another answer.");
            assertThat(regenerated.calls()).containsExactly("clear keep_system=true");
            assertThat(regenerated.chat().trim()).isEqualTo(last.chat().trim());
            assertThat(regenerated.prompt()).endsWith("User: " + question(n)).doesNotContain(answer(n));
            PlannerBench.Turn next = chat.say(question(++n), answer(n));
            assertThat(next.prompt()).isEqualTo(question(n));
        }
    }

    @Test
    void aLongChatThatLostItsSlotToAnotherChatComesBackWithWhatItHadLeftOut() {
        try (PlannerBench b = bench(1)) {
            PlannerBench.Chat a = b.chat(SYSTEM);
            int n = pastTheFirstOverflow(a);
            Trim trim = a.say(question(++n), answer(n)).chat().trim();
            PlannerBench.Turn other = b.chat("You are another chat.").say("Hello from another chat.", "Hello.");
            assertThat(other.chat().trim().count()).isZero();
            PlannerBench.Turn back = a.say(question(++n), answer(n));
            assertThat(back.calls()).contains("clear keep_system=false");
            assertThat(back.chat().trim()).as("not trimmed again from scratch").isEqualTo(trim);
            assertThat(back.prompt()).startsWith("User: " + question(trim.count() / 2 + 1));
            PlannerBench.Turn next = a.say(question(++n), answer(n));
            assertThat(next.prompt()).isEqualTo(question(n));
            assertThat(next.chat().trim()).isEqualTo(trim);
        }
    }

    @Test
    void withTwoSlotsALongChatStaysCachedWhileAnotherChatRuns() {
        try (PlannerBench b = bench(2)) {
            PlannerBench.Chat a = b.chat(SYSTEM);
            int n = pastTheFirstOverflow(a);
            b.chat("You are another chat.").say("Hello from another chat.", "Hello.");
            PlannerBench.Turn back = a.say(question(++n), answer(n));
            assertThat(back.prompt()).isEqualTo(question(n));
        }
    }

    @Test
    void thinkBlocksFillTheCacheButAResendWithoutThemLeavesNothingOut() {
        try (PlannerBench b = bench(1)) {
            PlannerBench.Chat chat = b.chat(SYSTEM);
            String thinking = "<think>" + "pondering the question at length ".repeat(40) + "</think>";
            PlannerBench.Turn t = null;
            int n = 0;
            while (n < 2 || !resent(t)) {
                n++;
                t = chat.say(question(n), thinking + "Short answer " + n + ".");
            }
            // the cache held every think block; the resend has none, so the whole chat fits with room to go on
            assertThat(t.chat().trim().count()).isZero();
            assertThat(t.prompt()).startsWith("User: " + question(1)).doesNotContain("pondering");
            assertThat(chat.say(question(++n), "Fine.").prompt()).isEqualTo(question(n));
        }
    }

    @Test
    void aLongAgentLoopLeavesOutItsOldestToolRoundsButKeepsItsQuestionAndNewestCall() {
        try (PlannerBench b = bench(1)) {
            PlannerBench.Chat chat = b.new Chat(SYSTEM, Optional.empty(), Optional.of(TOOLS));
            chat.say("Earlier question.", "Earlier answer.");
            chat.messages.add(PlannerBench.user("Find the figure, step by step."));
            chat.callTool("lookup");
            List<PlannerBench.Turn> rounds = new ArrayList<>();
            int r = 0;
            while (rounds.isEmpty() || !resent(rounds.getLast())) {
                r++;
                rounds.add(chat.toolResult(result(r), "lookup"));
            }
            PlannerBench.Turn overflow = rounds.getLast();
            assertThat(rounds.subList(0, rounds.size() - 1)).allSatisfy(t -> {
                assertThat(t.plan().request().role()).isEqualTo("tool");
                assertThat(t.calls()).isEmpty();
            });
            Trim trim = overflow.chat().trim();
            assertThat(trim.pinTo() - trim.pinFrom()).as("the question is kept").isEqualTo(1);
            assertThat(overflow.prompt()).startsWith("User: Find the figure, step by step.")
                    .doesNotContain("Earlier question.").doesNotContain(result(1))
                    .contains("{\"step\": " + (chat.messages.size() - 3) + "}").endsWith("Tool result: " + result(r));
            assertThat(overflow.chat().notes()).contains(new PreparedChat.Header("X-RKLLM-Context-Trimmed",
                    trim.count() + " earlier messages left out (the newest question kept)"));
            PlannerBench.Turn next = chat.toolResult(result(++r), "lookup");
            assertThat(next.plan().request().role()).isEqualTo("tool");
            assertThat(next.prompt()).isEqualTo(result(r));
            assertThat(next.chat().trim()).isEqualTo(trim);
            // the loop ends, the user goes on: the same messages stay left out
            chat.messages.removeLast();
            PlannerBench.Turn done = chat.toolResult(result(++r), "lookup");
            assertThat(done.chat().trim()).isEqualTo(trim);
        }
    }

    @Test
    void manyShortAgentTurnsAreTrimmedByWholeExchangesWithTheirToolCalls() {
        try (PlannerBench b = new PlannerBench(dir, 1, 2048, Map.of())) {
            PlannerBench.Chat chat = b.new Chat(SYSTEM, Optional.empty(), Optional.of(TOOLS));
            PlannerBench.Turn resend = null;
            int n = 0;
            while (resend == null) {
                n++;
                chat.messages.add(PlannerBench.user(question(n)));
                PlannerBench.Turn call = chat.callTool("lookup");
                chat.messages.add(new ChatMessage(Role.TOOL, result(n), List.of(), Optional.of("call")));
                PlannerBench.Turn answer = chat.answer(answer(n));
                for (PlannerBench.Turn t : List.of(call, answer)) {
                    if (n > 1 && resent(t)) {
                        resend = t;
                    }
                }
            }
            assertThat(resend.chat().trim().pinTo()).isEqualTo(resend.chat().trim().pinFrom());
            assertThat(resend.prompt()).as("a kept exchange starts with its question").startsWith("User: Question");
            assertThat(resend.prompt()).doesNotContain(question(1) + "\n");
        }
    }

    @Test
    void aNewMessageTooLargeForTheTargetLeavesOutAllHistoryButStillRuns() {
        try (PlannerBench b = bench(1)) {
            PlannerBench.Chat chat = b.chat(SYSTEM);
            int n = pastTheFirstOverflow(chat);
            String pasted = "A pasted page. " + "x".repeat(9000);
            PlannerBench.Turn t = chat.say(pasted, answer(++n));
            assertThat(t.prompt()).isEqualTo(pasted);
            assertThat(t.chat().trim().count()).isEqualTo(chat.messages.size() - 3);
        }
    }

    @Test
    void aFollowUpThatFitsOnTheCacheIsNotRefusedForTheEstimatesMargin() {
        try (PlannerBench b = new PlannerBench(dir, 1, 1024, Map.of("generation.reserved_output_tokens", "20"))) {
            PlannerBench.Chat chat = b.chat(SYSTEM);
            String words = "more words about the board ".repeat(15).strip();
            for (int n = 1; n <= 4; n++) {
                chat.say("Q" + n + " " + words, "A" + n + " " + words);
            }
            int cached = b.slots.getFirst().size;
            String last = "Q5 " + words;
            // exact cache + estimated message + answer fit; with the estimate's margin on the cache too they would not
            assertThat(cached + last.length() / 4 + 16 + 20).isLessThanOrEqualTo(1024);
            assertThat(Math.ceil((cached + last.length() / 4) * ContextFit.ESTIMATE_MARGIN) + 16).isGreaterThan(1024);
            PlannerBench.Turn t = chat.say(last, "Fine.");
            assertThat(t.prompt()).isEqualTo(last);
            assertThat(t.chat().maxTokens()).isZero();
        }
    }

    @Test
    void withTheCacheOffAsLittleAsPossibleIsLeftOut() {
        try (PlannerBench b = new PlannerBench(dir, 1, 4096, Map.of("cache.enabled", "false"))) {
            PlannerBench.Chat chat = b.chat(SYSTEM);
            PlannerBench.Turn first = null;
            int n = 0;
            while (first == null || first.chat().trim().count() == 0) {
                n++;
                first = chat.say(question(n), answer(n));
            }
            assertThat(first.chat().trim().count()).as("one exchange").isEqualTo(2);
        }
    }

    @Test
    void trimToOneLeavesOutAsLittleAsPossible() {
        try (PlannerBench b = new PlannerBench(dir, 1, 4096, Map.of("cache.trim_to", "1.0"))) {
            PlannerBench.Chat chat = b.chat(SYSTEM);
            PlannerBench.Turn t = null;
            int n = 0;
            while (n < 2 || !resent(t)) {
                n++;
                t = chat.say(question(n), answer(n));
            }
            assertThat(t.chat().promptEstimate()).isGreaterThan((4096 - 512) * 3 / 4);
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

    private static final String TOOLS = "[{\"type\":\"function\",\"function\":{\"name\":\"lookup\","
            + "\"parameters\":{\"type\":\"object\",\"properties\":{\"step\":{\"type\":\"integer\"}}}}}]";

    /** A user message of about 150 tokens, numbered. */
    private static String question(int n) {
        return "Question " + n + ": " + "tell me more about the board and its memory ".repeat(13).strip();
    }

    private static String answer(int n) {
        return "Answer " + n + ": " + "the board has enough memory for this model ".repeat(11).strip();
    }

    private static String result(int n) {
        return "Result " + n + ": " + "row of figures 12 34 56 78 ".repeat(20).strip();
    }

    /** A turn that sent history again, not only its new messages. */
    private static boolean resent(PlannerBench.Turn t) {
        return !t.calls().isEmpty() || t.plan().reusedTokens() <= FakeSlot.SYSTEM_TOKENS;
    }

    /** Chats until the first overflow and one turn after it; returns the number of the last question. */
    private static int pastTheFirstOverflow(PlannerBench.Chat chat) {
        int n = 0;
        boolean overflowed = false;
        while (!overflowed) {
            n++;
            PlannerBench.Turn t = chat.say(question(n), answer(n));
            overflowed = n > 1 && resent(t);
        }
        chat.say(question(++n), answer(n));
        return n;
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
