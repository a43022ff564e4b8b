package io.rkllm.server.backend.llama;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.rkllm.server.engine.contract.Cancellation;
import io.rkllm.server.engine.contract.ChatPrompt;
import io.rkllm.server.engine.contract.GenerationEvent;
import io.rkllm.server.engine.contract.StopReason;
import io.rkllm.server.engine.contract.cache.Trim;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.LoggerFactory;

/**
 * A run cancelled while its step decodes (its stop string came, its client went) ends at the step's end: the step
 * is decoded for every chat in it, none decodes its share again, llama.cpp reports no failed decode, and the
 * cancelled sequence's cells are what its held sequence says, so that the follow-up reuses the prompt and the answer
 * as far as the client kept it. A prompt chunk of a cancelled run alone is still stopped inside its decode.
 */
@Timeout(120)
class CancelAtStepEndTest {
    static final int TOKENS = 24;

    @TempDir
    static Path dir;
    static GgufModel model;
    final ListAppender<ILoggingEvent> llamaLog = new ListAppender<>();

    @BeforeAll
    static void load() throws Exception {
        model = TinyGgufModel.load(dir, 1024, 2);
    }

    @AfterAll
    static void close() {
        model.close();
    }

    @BeforeEach
    void watchLlamaLog() {
        llamaLog.start();
        ((Logger) LoggerFactory.getLogger("llama.cpp")).addAppender(llamaLog);
    }

    @AfterEach
    void unwatchLlamaLog() {
        ((Logger) LoggerFactory.getLogger("llama.cpp")).detachAppender(llamaLog);
    }

    /** What llama.cpp logged as a warning or an error during the test. */
    List<String> llamaProblems() {
        return llamaLog.list.stream().filter(e -> e.getLevel().isGreaterOrEqual(Level.WARN))
                .map(ILoggingEvent::getFormattedMessage).toList();
    }

    static ChatPrompt prompt(List<ChatPrompt.Message> messages) {
        String last = messages.getLast().content();
        return new ChatPrompt("tiny", new ChatPrompt.Identity(messages.getFirst().content(), List.of(), Trim.NONE,
                List.of("u:" + last), Optional::of), new ChatPrompt.Setup("", Optional.empty(), false,
                Optional.empty()), new ChatPrompt.Messages(messages), Optional.empty(),
                new ChatPrompt.Settings(false, Optional.of(TinyGgufModel.GREEDY), Optional.empty(), 16, 1024));
    }

    static ChatPrompt question(String text) {
        return prompt(List.of(ChatPrompt.Message.of("user", text)));
    }

    /** One run: its end, the answer, and how many tokens had been generated when each piece of it came. */
    record Run(GenerationEvent.End end, String text, List<Integer> ends, List<Integer> tokens) {
        GenerationEvent.Done finished() {
            assertThat(end).isInstanceOf(GenerationEvent.Done.class);
            return (GenerationEvent.Done) end;
        }

        int prompt() {
            return finished().reusedTokens() + finished().stats().prefillTokens();
        }

        int sequence() {
            return Integer.parseInt(finished().runtimeSettings().replace("sequence ", ""));
        }

        /** The fewest tokens that wrote the answer's first {@code chars} characters. */
        int tokensFor(int chars) {
            for (int i = 0; i < ends.size(); i++) {
                if (ends.get(i) >= chars) {
                    return tokens.get(i);
                }
            }
            throw new AssertionError("the answer " + text + " is shorter than " + chars);
        }
    }

    static Run generate(ChatPrompt prompt, Cancellation cancellation) {
        StringBuilder text = new StringBuilder();
        List<Integer> ends = new ArrayList<>();
        List<Integer> tokens = new ArrayList<>();
        GenerationEvent.End end = model.generate(prompt, TOKENS, (piece, generated) -> {
            text.append(piece);
            ends.add(text.length());
            tokens.add(generated);
        }, cancellation);
        return new Run(end, text.toString(), ends, tokens);
    }

    /** What the sequence's cells hold agrees with what the loop says it holds: the next reuse is exact. */
    static void assertCellsAgree(int sequence) throws Exception {
        DecodeLoop.Cells cells = model.loop().cells(sequence).get();
        assertThat(cells.cached()).as("cells of sequence %d", sequence).isEqualTo(cells.held());
    }

    @Test
    void aRunCancelledWhileItsStepDecodesEndsThereAndTheChatBesideItLosesNothing() throws Exception {
        ChatPrompt kept = question("Which cores does the board have?");
        String alone = generate(kept, new Cancellation()).text();
        long abortedBefore = model.loop().abortedDecodes();

        Cancellation cancel = new Cancellation();
        CountDownLatch held = HeldLoop.hold(model.loop());
        CompletableFuture<Run> beside = CompletableFuture.supplyAsync(() -> generate(kept, new Cancellation()),
                HeldLoop::thread);
        CompletableFuture<Run> cancelled = CompletableFuture.supplyAsync(() -> generate(question(
                "Write a story about a fan."), cancel), HeldLoop::thread);
        HeldLoop.awaitQueued(model.loop(), 2);
        // both prompts are read in the first step; the second decodes a token of each, and the cancel comes while
        // it does (as a stop string's, from the thread that reads the answer)
        model.loop().afterNextStep(() -> model.loop().beforeNextDecode(cancel::cancel));
        held.countDown();

        Run gone = cancelled.get();
        assertThat(gone.finished().reason()).isEqualTo(StopReason.CANCELLED);
        assertThat(beside.get().text()).as("the same greedy tokens as alone").isEqualTo(alone);
        assertThat(model.loop().abortedDecodes()).as("decodes aborted").isEqualTo(abortedBefore);
        assertThat(llamaProblems()).isEmpty();
        // the step under way was decoded for the cancelled run too: every token it sampled is in its cells
        assertThat(model.loop().cells(gone.sequence()).get().held())
                .isEqualTo(gone.prompt() + gone.finished().stats().generateTokens());
        assertCellsAgree(gone.sequence());
    }

    @Test
    void aPromptChunkSharedWithAnotherChatIsDecodedWholeWhenItsRunIsCancelled() throws Exception {
        ChatPrompt kept = question("How is the board cooled?");
        String alone = generate(kept, new Cancellation()).text();
        long abortedBefore = model.loop().abortedDecodes();

        Cancellation cancel = new Cancellation();
        CountDownLatch held = HeldLoop.hold(model.loop());
        CompletableFuture<Run> beside = CompletableFuture.supplyAsync(() -> generate(kept, new Cancellation()),
                HeldLoop::thread);
        CompletableFuture<Run> cancelled = CompletableFuture.supplyAsync(() -> generate(question(
                "Tell me everything about the NPU and its memory."), cancel), HeldLoop::thread);
        HeldLoop.awaitQueued(model.loop(), 2);
        // the client goes away while the first step reads both prompts
        model.loop().beforeNextDecode(cancel::cancel);
        held.countDown();

        Run gone = cancelled.get();
        assertThat(gone.finished().reason()).isEqualTo(StopReason.CANCELLED);
        assertThat(gone.text()).isEmpty();
        assertThat(beside.get().text()).isEqualTo(alone);
        assertThat(model.loop().abortedDecodes()).isEqualTo(abortedBefore);
        assertThat(llamaProblems()).isEmpty();
        assertCellsAgree(gone.sequence());
    }

    @Test
    void aPromptChunkOfACancelledRunAloneIsStoppedInsideItsDecode() throws Exception {
        long abortedBefore = model.loop().abortedDecodes();
        Cancellation cancel = new Cancellation();
        CountDownLatch held = HeldLoop.hold(model.loop());
        CompletableFuture<Run> cancelled = CompletableFuture.supplyAsync(() -> generate(question(
                "Read this: " + "the quick brown fox jumps over the lazy dog. ".repeat(30)), cancel),
                HeldLoop::thread);
        HeldLoop.awaitQueued(model.loop(), 1);
        model.loop().beforeNextDecode(cancel::cancel);
        held.countDown();

        Run gone = cancelled.get();
        assertThat(gone.finished().reason()).isEqualTo(StopReason.CANCELLED);
        assertThat(gone.finished().stats().prefillTokens()).as("prompt tokens decoded").isZero();
        assertThat(model.loop().abortedDecodes()).isEqualTo(abortedBefore + 1);
        // the aborted decode is expected: llama.cpp's report of it is not a warning, let alone an error
        assertThat(llamaProblems()).isEmpty();
        assertCellsAgree(gone.sequence());
    }

    @Test
    void theFollowUpOfAnAnswerEndedByAStopStringReusesThePromptAndTheAnswerAsTheClientKeptIt() throws Exception {
        List<ChatPrompt.Message> first = List.of(ChatPrompt.Message.of("user", "Name the cores of the board."));
        Run whole = generate(prompt(first), new Cancellation());
        int at = StopStrings.stopAt(whole.text());
        String kept = whole.text().substring(0, at);
        long abortedBefore = model.loop().abortedDecodes();

        // the step that samples the stop string's last token ends, the answer's reader (the pipeline) sees the stop
        // string and cancels the run while the next step decodes that token
        Cancellation cancellation = new Cancellation();
        CountDownLatch held = HeldLoop.hold(model.loop());
        CompletableFuture<Run> run = CompletableFuture.supplyAsync(() -> generate(prompt(first), cancellation),
                HeldLoop::thread);
        HeldLoop.awaitQueued(model.loop(), 1);
        cancelDuringStep(whole.tokensFor(at + 3) + 1, cancellation);
        held.countDown();
        Run stopped = run.get();
        assertThat(stopped.finished().reason()).isEqualTo(StopReason.CANCELLED);
        assertThat(stopped.text()).startsWith(whole.text().substring(0, at + 3));
        assertThat(model.loop().abortedDecodes()).as("decodes aborted").isEqualTo(abortedBefore);
        assertThat(llamaProblems()).isEmpty();
        assertCellsAgree(stopped.sequence());

        Run followUp = generate(prompt(List.of(first.getFirst(), ChatPrompt.Message.of("assistant", kept),
                ChatPrompt.Message.of("user", "And the small ones?"))), new Cancellation());
        assertThat(followUp.finished().reusedTokens())
                .as("the prompt (%d tokens) and the %d tokens that wrote '%s'", stopped.prompt(),
                        whole.tokensFor(at), kept)
                .isGreaterThanOrEqualTo(stopped.prompt() + whole.tokensFor(at) - 1);
    }

    /**
     * Cancels while the {@code step}th step from now decodes (the first reads the prompt and samples the first
     * token; step {@code n + 1} decodes token {@code n}); the loop is held until the run is queued.
     */
    static void cancelDuringStep(int step, Cancellation cancellation) {
        if (step == 1) {
            model.loop().beforeNextDecode(cancellation::cancel);
        } else {
            model.loop().afterNextStep(() -> cancelDuringStep(step - 1, cancellation));
        }
    }
}
