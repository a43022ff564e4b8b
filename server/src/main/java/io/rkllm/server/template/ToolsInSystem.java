package io.rkllm.server.template;

import java.util.ArrayList;
import java.util.List;

/**
 * The tools of a request described in its system message, for a template that writes the calls of earlier answers
 * but not the tools themselves (DeepSeek R1's distills, DeepSeek V3.1): the model then knows what it may call, as
 * templates that take tools tell it (minja's polyfill did the same for llama.cpp).
 */
final class ToolsInSystem {
    private ToolsInSystem() {
    }

    static List<TemplateMessage> added(List<TemplateMessage> conversation, String toolsJson) {
        String tools = "You may call one or more of these functions (an OpenAI tools list, in JSON):\n" + toolsJson;
        List<TemplateMessage> out = new ArrayList<>(conversation);
        if (!out.isEmpty() && out.getFirst().role().equals("system")) {
            TemplateMessage system = out.getFirst();
            out.set(0, new TemplateMessage("system", system.content() + "\n\n" + tools, system.toolCalls(),
                    system.toolCallId(), system.reasoning()));
        } else {
            out.addFirst(TemplateMessage.of("system", tools));
        }
        return out;
    }
}
