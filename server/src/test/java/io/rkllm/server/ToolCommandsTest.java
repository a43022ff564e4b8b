package io.rkllm.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.rkllm.server.app.StartupException;
import io.rkllm.server.config.CommandLine;
import io.rkllm.server.config.ConfigException;
import io.rkllm.server.tools.ToolCommand;
import io.rkllm.server.tools.ToolCommands;
import io.rkllm.server.tools.ToolContext;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * The launcher and the tools jar: its commands found and run through {@link ToolCommand}, and without it (as on
 * this module's class path, which the tools module is never on) a message saying what to install.
 */
class ToolCommandsTest {
    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private final ByteArrayOutputStream err = new ByteArrayOutputStream();

    private Main main() {
        return new Main(Map.of("HOME", "/nonexistent"), new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8));
    }

    /** A tool command as the tools jar would bring one. */
    private record Echo(AtomicReference<CommandLine> ran) implements ToolCommand {
        @Override
        public String name() {
            return "echo";
        }

        @Override
        public Set<String> valueOptions() {
            return Set.of("words");
        }

        @Override
        public String usage() {
            return "  rkllm-server echo --words W\n";
        }

        @Override
        public int run(CommandLine line, ToolContext context) {
            ran.set(line);
            context.out().println("echo " + line.commandOptions().get("words"));
            return 0;
        }
    }

    @Test
    void withoutTheToolsJarItsCommandsSayWhatToInstall() {
        for (String command : List.of("bench", "fuzz", "soak", "cds-archive")) {
            err.reset();
            assertThat(main().run(new String[] {command, "conversations"})).isEqualTo(Main.BAD_CONFIG);
            assertThat(err.toString(StandardCharsets.UTF_8)).contains("rkllm-server " + command + ": " + command
                    + " is in the tools jar, rkllm-server-tools.jar", "install the rkllm-server package again",
                    "scripts/build package");
        }
    }

    @Test
    void withoutTheToolsJarTheHelpSaysWhereTheyAre() {
        assertThat(main().run(new String[] {"--help"})).isZero();
        assertThat(out.toString(StandardCharsets.UTF_8)).contains("rkllm-server bench|fuzz|soak|cds-archive",
                "in rkllm-server-tools.jar, which is not installed here", "rkllm-server doctor");
    }

    @Test
    void aMisspeltCommandIsStillUnknown() {
        assertThat(main().run(new String[] {"bnech"})).isEqualTo(Main.BAD_CONFIG);
        assertThat(err.toString(StandardCharsets.UTF_8)).contains("unknown command 'bnech'", "bench", "doctor");
    }

    @Test
    void theServersOwnCommandsNeedNoLookUp() {
        ParsedCommand parsed = ParsedCommand.of(new String[] {"doctor", "--user", "x"}, () -> {
            throw new AssertionError("looked for tool commands");
        });
        assertThat(parsed.line().command()).isEqualTo("doctor");
    }

    @Test
    void aToolCommandGetsItsOwnWordsAndOptions() {
        AtomicReference<CommandLine> ran = new AtomicReference<>();
        ToolCommands tools = ToolCommands.of(List.of(new Echo(ran)));
        ParsedCommand parsed = ParsedCommand.of(new String[] {"echo", "--words", "hello", "--port", "9"}, () -> tools);
        assertThat(parsed.line().command()).isEqualTo("echo");
        assertThat(parsed.line().commandOptions()).containsEntry("words", "hello");
        assertThat(parsed.line().configFlags()).containsEntry("server.port", "9");
        // its option without a value at the end of the line misses its value; an option nobody takes is unknown
        assertThatThrownBy(() -> ParsedCommand.of(new String[] {"echo", "--words"}, () -> tools))
                .isInstanceOf(ConfigException.class).hasMessage("--words needs a value");
        assertThatThrownBy(() -> ParsedCommand.of(new String[] {"echo", "--wrods"}, () -> tools))
                .isInstanceOf(ConfigException.class).hasMessageContaining("--wrods: unknown option");
        assertThat(tools.usage()).isEqualTo("  rkllm-server echo --words W\n");
    }

    @Test
    void twoCommandsOfOneNameAreRefused() {
        AtomicReference<CommandLine> ran = new AtomicReference<>();
        assertThatThrownBy(() -> ToolCommands.of(List.of(new Echo(ran), new Echo(ran))))
                .isInstanceOf(StartupException.class).hasMessageContaining("two tool commands named echo");
    }
}
