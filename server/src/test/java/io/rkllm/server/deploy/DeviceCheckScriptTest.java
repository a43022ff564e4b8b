package io.rkllm.server.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * scripts/device-check.sh against the simulated runtime, whose model file carries the faults of runtime 1.3.0:
 * the script must see each of them with the server's workarounds switched off, and whole answers with its
 * defaults (on a real 1.2.3 runtime it sees none, as the same run on the simulated 1.2 does).
 */
class DeviceCheckScriptTest {
    private static final String FAULTY = "#rkllm-sim 1\nthinking: 1\nreply_tokens: 20\ntime_scale: 0\n"
            + "memory_mb: 2000\nnpu_budget_mb: 3000\nfault: think_finish_even_with_template, no_eos\n";

    @TempDir
    Path dir;

    private Repo.Result check(String abi) throws IOException {
        Assumptions.assumeTrue(Repo.onPath("python3") && Repo.onPath("curl"), "needs python3 and curl");
        Path model = Files.writeString(dir.resolve("qwen3-sim.rkllm"), FAULTY);
        Path second = Files.writeString(dir.resolve("second.rkllm"), "#rkllm-sim 1\ntime_scale: 0\n"
                + "memory_mb: 2000\nnpu_budget_mb: 3000\n");
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        String command = java + " --enable-native-access=ALL-UNNAMED -XX:+UseSerialGC -Xshare:auto "
                + ChildServer.CLIENT_COMPILER + " -XX:ErrorFile="
                + dir.resolve("hs_err_%p.log") + " -XX:-CreateCoredumpOnCrash -cp "
                + System.getProperty("java.class.path") + " io.rkllm.server.Main";
        return Repo.run(List.of("bash", Repo.file("scripts/device-check.sh").toString(), "--simulate", "--abi", abi,
                "--model", model.toString(), "--second", second.toString(), "--crash-test"),
                Map.of("RKLLM_SERVER_CMD", command));
    }

    @Test
    void onRuntime13EveryFaultIsSeenAndTheDefaultsGiveWholeAnswers() throws IOException {
        Repo.Result r = check("1.3");
        assertThat(r.code()).as(r.output()).isZero();
        String summary = r.output().substring(r.output().indexOf("== summary"));
        assertThat(summary).as(r.output())
                .contains("think_finish without a template: SEEN")
                .contains("think_finish with a template: SEEN")
                .contains("no_eos: SEEN (ran to the token limit)")
                .contains("default thinking answer: whole")
                .contains("default short answer: ended (finish_reason stop)")
                .contains("init beyond memory: SEEN: the server process died");
        assertThat(r.output()).contains("X-RKLLM-Incomplete:").contains("server log: ")
                .contains("did not recognise the model's EOS");
    }
}
