package io.rkllm.server.pipeline.request;

import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * What a request asks of the model's thinking and its chat template.
 *
 * @param on thinking on or off, when the request says ({@code reasoning_effort}, {@code think}, {@code thinking},
 *           {@code chat_template_kwargs.enable_thinking})
 * @param effort how hard to think ({@code low}, {@code medium}, {@code high}), for templates that take it (gpt-oss)
 * @param templateArguments the client's own arguments for the chat template ({@code chat_template_kwargs}), plain
 *                          values, lists and maps
 * @param budget the most tokens the reasoning may take, when the request sets it
 */
public record Thinking(Optional<Boolean> on, Optional<String> effort, Map<String, Object> templateArguments,
                       Optional<ThinkingBudget> budget) {
    /** Nothing asked. */
    public static final Thinking UNSAID = new Thinking(Optional.empty(), Optional.empty(), Map.of());

    public Thinking {
        Objects.requireNonNull(on, "on");
        Objects.requireNonNull(effort, "effort");
        templateArguments = Map.copyOf(templateArguments);
        Objects.requireNonNull(budget, "budget");
    }

    /** No budget. */
    public Thinking(Optional<Boolean> on, Optional<String> effort, Map<String, Object> templateArguments) {
        this(on, effort, templateArguments, Optional.empty());
    }

    /** The same with a budget (or none). */
    public Thinking withBudget(Optional<ThinkingBudget> value) {
        return new Thinking(on, effort, templateArguments, value);
    }

    /** On or off, nothing more. */
    public static Thinking of(Optional<Boolean> on) {
        return new Thinking(on, Optional.empty(), Map.of());
    }

    /** The same with an effort (kept when one was asked). */
    public Thinking withEffort(String value) {
        return new Thinking(on, effort.or(() -> Optional.of(value)), templateArguments, budget);
    }

    /** Thinking off. */
    public static Thinking off() {
        return of(Optional.of(false));
    }
}
