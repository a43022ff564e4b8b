package io.rkllm.server.pipeline.output;

/** What a marker found in content does. */
sealed interface MarkerAction {
    record Stop() implements MarkerAction {
    }

    record Reasoning(Syntax.Block block) implements MarkerAction {
    }

    record Tool(Syntax.ToolBlock block) implements MarkerAction {
    }

    record Header() implements MarkerAction {
    }

    record Silent() implements MarkerAction {
    }
}
