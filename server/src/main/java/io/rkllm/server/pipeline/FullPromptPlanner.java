package io.rkllm.server.pipeline;

import io.rkllm.ffm.Model;
import io.rkllm.ffm.RunInput;
import io.rkllm.ffm.TokenEvent;
import io.rkllm.server.engine.RunPlanner;
import java.util.Optional;

/**
 * Plans a run on the model's worker: sets the chat template or tools when they differ from what
 * the handle has, clears the KV cache, and sends the whole conversation. The cache-aware policy
 * replaces the last two steps with what the cache already holds.
 */
public final class FullPromptPlanner implements RunPlanner {
    static final String TOOL_RESPONSE_TAG = "tool_response";

    private final PreparedChat chat;
    private final HandleState state;
    private final TokenEstimator estimator;
    private volatile RunAccounting accounting = RunAccounting.NONE;
    private String sentText = "";

    public FullPromptPlanner(PreparedChat chat, HandleState state, TokenEstimator estimator) {
        this.chat = chat;
        this.state = state;
        this.estimator = estimator;
    }

    /** What the plan sent; valid once the generation has started. */
    public RunAccounting accounting() {
        return accounting;
    }

    @Override
    public RunInput plan(Model model) {
        String system = chat.conversation().systemPrompt();
        Optional<PromptFormat.RuntimeTemplate> template = chat.format()
                .map(f -> f.template(f.acceptsSystemPrompt() ? system : "", !chat.thinking()));
        boolean systemInPrompt = chat.format().isEmpty() || !chat.format().get().acceptsSystemPrompt();
        applyTemplateAndTools(model, template, system);
        model.clearKvCache(false);
        String prompt = PromptFlattener.flatten(chat.conversation());
        if (systemInPrompt && !system.isEmpty()) {
            prompt = system + "\n\n" + prompt;
        }
        sentText = template.map(t -> t.systemPrompt() + t.promptPrefix() + "%s" + t.promptPostfix()).orElse("%s")
                .formatted(prompt);
        accounting = new RunAccounting(0, false);
        RunInput input = new RunInput("user", prompt, chat.thinking(), false, chat.sampling(), 0,
                Optional.empty(), Optional.empty());
        return input;
    }

    @Override
    public void finished(Model model, RunInput input, TokenEvent terminal) {
        if (terminal instanceof TokenEvent.Finished f && f.perf().prefillTokens() > 0) {
            estimator.calibrate(chat.model().id(), sentText, f.perf().prefillTokens());
        }
    }

    private void applyTemplateAndTools(Model model, Optional<PromptFormat.RuntimeTemplate> template, String system) {
        Optional<String> tools = chat.request().toolsJson();
        if (tools.isPresent()) {
            if (!tools.equals(state.tools())) {
                model.setFunctionTools(system, tools.get(), TOOL_RESPONSE_TAG);
                state.tools(tools.get());
                state.template(null);
            }
            return;
        }
        if (template.isPresent() && (state.tools().isPresent() || !template.equals(state.template()))) {
            PromptFormat.RuntimeTemplate t = template.get();
            model.setChatTemplate(t.systemPrompt(), t.promptPrefix(), t.promptPostfix());
            state.template(t);
            state.tools(null);
        }
    }
}
