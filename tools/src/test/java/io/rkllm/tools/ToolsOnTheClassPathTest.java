package io.rkllm.tools;

import static org.assertj.core.api.Assertions.assertThat;

import io.rkllm.server.tools.ToolCommands;
import org.junit.jupiter.api.Test;

/** The launcher finds every command of this module through its service file, with their --help lines. */
class ToolsOnTheClassPathTest {
    @Test
    void theLauncherFindsEveryCommand() {
        ToolCommands tools = ToolCommands.onClassPath();
        assertThat(tools.present()).isTrue();
        for (String name : ToolCommands.SHIPPED) {
            assertThat(tools.find(name)).as(name).isPresent();
        }
        assertThat(tools.usage()).contains("rkllm-server bench conversations", "rkllm-server bench llama",
                "rkllm-server fuzz", "rkllm-server soak", "rkllm-server cds-archive").doesNotContain("not installed");
        assertThat(tools.valueOptions()).contains("gguf", "cases", "requests", "prefill-tps");
    }
}
