package io.rkllm.server.pipeline;

import io.rkllm.server.engine.contract.ReasoningBudget;
import io.rkllm.server.engine.contract.RuntimeInfo;
import io.rkllm.server.pipeline.output.ScannerOptions;
import io.rkllm.server.pipeline.output.Syntax;
import io.rkllm.server.pipeline.request.ThinkingBudget;
import java.util.List;
import java.util.Optional;

/**
 * A request's thinking budget in its model's words: the markers of the dialect's reasoning block, and whether the
 * prompt opened it. A budget where nothing reasons (thinking off, a raw prompt) asks for nothing; a runtime that
 * samples inside (RKLLM's) cannot end a reasoning early, and the response says it was not applied.
 */
final class ReasoningBudgets {
    static final String HEADER = "X-RKLLM-Thinking-Budget";

    private ReasoningBudgets() {
    }

    static Optional<ReasoningBudget> of(Optional<ThinkingBudget> asked, boolean thinking, ScannerOptions scanner,
                                        RuntimeInfo runtime, List<PreparedChat.Header> notes) {
        if (asked.isEmpty() || !thinking || !scanner.parseThink()) {
            return Optional.empty();
        }
        if (scanner.syntax().reasoning().isEmpty()) {
            notes.add(new PreparedChat.Header(HEADER, "ignored: the model's dialect writes its reasoning in a"
                    + " channel of its own (as gpt-oss's), with no closing marker the server could write"));
            return Optional.empty();
        }
        if (!runtime.steersEachToken()) {
            notes.add(new PreparedChat.Header(HEADER, "ignored: the " + runtime.name() + " samples each token"
                    + " itself and cannot end the reasoning early (a GGUF model can)"));
            return Optional.empty();
        }
        Syntax syntax = scanner.syntax();
        Syntax.Block block = syntax.reasoning().getFirst();
        List<String> calls = syntax.callsEndReasoning() ? syntax.tools().stream().map(Syntax.ToolBlock::open)
                .filter(open -> !open.isBlank()).toList() : List.of();
        return Optional.of(new ReasoningBudget(asked.get().tokens(), block.open(), block.close(),
                scanner.startInsideThink(), asked.get().message(), calls));
    }
}
