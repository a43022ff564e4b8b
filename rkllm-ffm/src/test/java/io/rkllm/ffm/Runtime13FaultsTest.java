package io.rkllm.ffm;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The faults reported for runtime 1.3.0, as the simulated runtime reproduces them through the real
 * binding: on ABI 1.3 only, while the same model files behave on 1.2 as runtime 1.2.3 does.
 */
class Runtime13FaultsTest {
    @TempDir
    Path dir;

    private static TokenEvent.Finished finished(TokenEvent end) {
        assertThat(end).isInstanceOf(TokenEvent.Finished.class);
        TokenEvent.Finished f = (TokenEvent.Finished) end;
        assertThat(f.aborted()).isFalse();
        return f;
    }

    @ParameterizedTest
    @EnumSource(Abi.class)
    void thinkFinishEndsTheRunAtTheClosingTagAndTheFollowUpStopsEarly(Abi abi) {
        RkllmRuntime runtime = Sim.runtime(abi);
        Path file = Sim.model(dir, "m", Map.of("thinking", "1", "reply_tokens", "40", "fault", "think_finish"));
        try (Model model = runtime.load(Sim.params(runtime, file, 4096))) {
            Sim.Collector thinking = new Sim.Collector();
            finished(model.run(RunInput.user("Why is the sky blue?", true).withThinking(true), thinking,
                    new RunControl()));
            Sim.Collector answer = new Sim.Collector();
            TokenEvent.Finished end = finished(model.run(RunInput.user("Go on.", true).withThinking(true), answer,
                    new RunControl()));
            if (abi == Abi.V1_3) {
                // a normal FINISH, yet the reasoning is cut before its closing tag and the answer is missing
                assertThat(thinking.text()).startsWith("<think>\n").doesNotContain("</think>").endsWith(".\n");
                assertThat(end.perf().generateTokens()).isBetween(13, 27);
                assertThat(answer.text()).doesNotContain("<think>");
            } else {
                assertThat(thinking.text()).startsWith("<think>\n").contains("\n</think>\n\n").endsWith(".");
                assertThat(end.perf().generateTokens()).isGreaterThan(40);
            }
        }
        List<JsonNode> runs = Sim.calls(file, "run");
        List<String> reasons = runs.stream().map(r -> r.get("finish_reason").asText()).toList();
        assertThat(reasons).isEqualTo(abi == Abi.V1_3 ? List.of("think_end", "early_eos") : List.of("eos", "eos"));
    }

    @ParameterizedTest
    @EnumSource(Abi.class)
    void whetherThinkFinishSurvivesAChatTemplateIsAChoiceOfTheModelFile(Abi abi) {
        RkllmRuntime runtime = Sim.runtime(abi);
        String postfix = "<|im_end|>\\n<|im_start|>assistant\\n";
        for (String fault : List.of("think_finish", "think_finish_even_with_template")) {
            Path file = Sim.model(dir, fault, Map.of("thinking", "1", "fault", fault));
            try (Model model = runtime.load(Sim.params(runtime, file, 4096))) {
                model.setChatTemplate("", "<|im_start|>user\n", postfix.replace("\\n", "\n"));
                Sim.Collector out = new Sim.Collector();
                finished(model.run(RunInput.user("Why?", false).withThinking(true), out, new RunControl()));
                boolean cut = abi == Abi.V1_3 && fault.equals("think_finish_even_with_template");
                assertThat(out.text()).startsWith("<think>\n");
                assertThat(out.text().contains("</think>")).as("%s on %s", fault, abi).isEqualTo(!cut);
            }
        }
    }

    @ParameterizedTest
    @EnumSource(Abi.class)
    void noEosGeneratesUntilTheTokenLimit(Abi abi) {
        RkllmRuntime runtime = Sim.runtime(abi);
        Path file = Sim.model(dir, "m", Map.of("reply_tokens", "10", "fault", "no_eos"));
        try (Model model = runtime.load(Sim.params(runtime, file, 4096).withMaxNewTokens(60))) {
            Sim.Collector out = new Sim.Collector();
            TokenEvent.Finished end = finished(model.run(RunInput.user("Hello", false), out, new RunControl()));
            assertThat(end.perf().generateTokens()).isEqualTo(abi == Abi.V1_3 ? 60 : 10);
            // skip_special_token (the library's default): the end-of-turn marker itself is not in the text
            assertThat(out.text()).doesNotContain("<|im_end|>");
        }
        assertThat(Sim.calls(file, "run").getFirst().get("finish_reason").asText())
                .isEqualTo(abi == Abi.V1_3 ? "max_new_tokens" : "eos");
    }

    @ParameterizedTest
    @EnumSource(Abi.class)
    void theEndMarkerTheRunGoesPastArrivesAsATokenWithoutText(Abi abi) {
        RkllmRuntime runtime = Sim.runtime(abi);
        Path file = Sim.model(dir, "m", Map.of("reply_tokens", "10", "fault", "no_eos"));
        try (Model model = runtime.load(Sim.params(runtime, file, 4096).withMaxNewTokens(30))) {
            Sim.Collector out = new Sim.Collector();
            finished(model.run(RunInput.user("Hello", false), out, new RunControl()));
            List<Integer> silent = out.events.stream().filter(e -> e instanceof TokenEvent.Text t && t.text().isEmpty())
                    .map(e -> ((TokenEvent.Text) e).tokens()).toList();
            // the answer's 10 tokens, then <|im_end|> (skip_special_token: no bytes), then the next "turn"
            assertThat(silent).isEqualTo(abi == Abi.V1_3 ? List.of(11, 22) : List.of());
        }
    }

    @Test
    void anInitBeyondTheNpuMemoryBudgetFailsCleanlyOn12() {
        RkllmRuntime runtime = Sim.runtime(Abi.V1_2);
        Path file = Sim.model(dir, "big", Map.of("memory_mb", "2000", "npu_budget_mb", "3000"));
        try (Model first = runtime.load(Sim.params(runtime, file, 512))) {
            assertThatThrownBy(() -> runtime.load(Sim.params(runtime, file, 512)))
                    .isInstanceOf(RkllmException.class)
                    .hasMessageContaining("failed to malloc npu memory")
                    .hasMessageContaining("not enough NPU memory: the model needs 2000 MB");
            assertThat(first.isClosed()).isFalse();
        }
        try (Model again = runtime.load(Sim.params(runtime, file, 512))) {
            assertThat(again.isClosed()).isFalse();
        }
    }

    @Test
    void anInitBeyondTheNpuMemoryBudgetKillsTheProcessOn13() throws IOException, InterruptedException {
        Path errorFile = dir.resolve("hs_err.log");
        Path java = Path.of(System.getProperty("java.home"), "bin", "java");
        Process child = new ProcessBuilder(java.toString(), "--enable-native-access=ALL-UNNAMED",
                "-XX:-CreateCoredumpOnCrash", "-XX:ErrorFile=" + errorFile, "-Xshare:auto",
                "-Drkllm.sim.dir=" + Sim.dir().toAbsolutePath(), "-cp", System.getProperty("java.class.path"),
                SecondInitChild.class.getName(), "1.3", dir.toString())
                .redirectErrorStream(true).redirectOutput(dir.resolve("child.out").toFile()).start();
        assertThat(child.waitFor(60, TimeUnit.SECONDS)).as("child JVM ended").isTrue();
        String output = Files.readString(dir.resolve("child.out"), StandardCharsets.UTF_8);
        assertThat(child.exitValue()).as(output).isNotZero();
        assertThat(output).contains("first loaded").doesNotContain("second loaded").doesNotContain("second refused");
        // a real segmentation fault inside the runtime's rkllm_init, reported by the JVM's crash handler
        assertThat(errorFile).exists();
        assertThat(Files.readString(errorFile)).contains("SIGSEGV").contains("librkllmrt-1.3.so");
        JsonNode crash = Sim.calls(dir.resolve("big.rkllm"), "init").getLast();
        assertThat(crash.get("result").asText()).isEqualTo("crash");
    }
}
