package io.rkllm.ffm;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** {@code RKLLM_INFER_GET_LAST_HIDDEN_LAYER} through the real binding, on both ABIs. */
class HiddenLayerTest {
    /** "Hello there" as a first turn: 13 system + 3 prefix + 2 + 5 postfix tokens (docs: Tokenizer). */
    private static final int HELLO_THERE_TOKENS = 23;

    @TempDir
    Path dir;

    private Model embeddingModel(Abi abi, Map<String, String> extra) {
        RkllmRuntime runtime = Sim.runtime(abi);
        Map<String, String> keys = new java.util.HashMap<>(Map.of("kind", "embedding", "embd_size", "32"));
        keys.putAll(extra);
        return runtime.load(Sim.params(runtime, Sim.model(dir, "embed", keys), 512));
    }

    private static HiddenLayer.States states(HiddenLayer result) {
        assertThat(result).isInstanceOf(HiddenLayer.States.class);
        return (HiddenLayer.States) result;
    }

    private static float[] mean(List<float[]> rows) {
        float[] sum = new float[rows.getFirst().length];
        for (float[] row : rows) {
            for (int i = 0; i < sum.length; i++) {
                sum[i] += row[i] / rows.size();
            }
        }
        return sum;
    }

    @ParameterizedTest
    @EnumSource(Abi.class)
    void theRowsAreOnePerPrefilledTokenOfTheModelsWidth(Abi abi) {
        try (Model model = embeddingModel(abi, Map.of())) {
            HiddenLayer.States s = states(model.lastHiddenLayer(RunInput.user("Hello there", false), new RunControl()));
            assertThat(s.embdSize()).isEqualTo(32);
            assertThat(s.rows()).hasSize(HELLO_THERE_TOKENS).allSatisfy(row -> assertThat(row).hasSize(32));
            assertThat(s.perf().prefillTokens()).isEqualTo(HELLO_THERE_TOKENS);
            assertThat(s.perf().generateTokens()).isZero();
            assertThat(s.lastRow()).isSameAs(s.rows().getLast());
            // the run ended cleanly: nothing kept, and the model answers the next call
            assertThat(model.kvCacheSizes()[0]).isZero();
        }
        JsonNode run = Sim.calls(dir.resolve("embed.rkllm"), "run").getFirst();
        assertThat(run.get("mode").asInt()).isEqualTo(1);
        assertThat(run.get("result").asText()).isEqualTo("finish");
        assertThat(run.get("vector_rows").asInt()).isEqualTo(HELLO_THERE_TOKENS);
        // on 1.3 the binding answers 2 once it has copied the rows: the runtime may free them at once
        assertThat(run.get("output_released").asBoolean()).isEqualTo(abi == Abi.V1_3);
    }

    @ParameterizedTest
    @EnumSource(Abi.class)
    void equalTextsGiveEqualRowsAndDifferentTextsDifferentOnes(Abi abi) {
        try (Model model = embeddingModel(abi, Map.of())) {
            HiddenLayer.States a = states(model.lastHiddenLayer(RunInput.user("The NPU runs it", false),
                    new RunControl()));
            HiddenLayer.States again = states(model.lastHiddenLayer(RunInput.user("The NPU runs it", false),
                    new RunControl()));
            HiddenLayer.States other = states(model.lastHiddenLayer(RunInput.user("The GPU runs it", false),
                    new RunControl()));
            for (int i = 0; i < a.rows().size(); i++) {
                assertThat(again.rows().get(i)).isEqualTo(a.rows().get(i));
            }
            assertThat(other.rows()).hasSameSizeAs(a.rows());
            assertThat(Arrays.equals(other.lastRow(), a.lastRow())).isFalse();
            assertThat(Arrays.equals(mean(other.rows()), mean(a.rows()))).isFalse();
            // rows of the common prefix (system part and prefix) are the same: they only see what came before
            assertThat(other.rows().getFirst()).isEqualTo(a.rows().getFirst());
        }
    }

    @ParameterizedTest
    @EnumSource(Abi.class)
    void aFailedRunIsAFailureAndTheModelKeepsServing(Abi abi) {
        try (Model model = embeddingModel(abi, Map.of())) {
            HiddenLayer failed = model.lastHiddenLayer(RunInput.user("chunk 7 [[error]]", false), new RunControl());
            assertThat(failed).isInstanceOf(HiddenLayer.Failed.class);
            assertThat(states(model.lastHiddenLayer(RunInput.user("chunk 8", false), new RunControl())).rows())
                    .isNotEmpty();
        }
        try (Model model = embeddingModel(abi, Map.of("fault", "error_after=0"))) {
            assertThat(model.lastHiddenLayer(RunInput.user("anything", false), new RunControl()))
                    .isInstanceOf(HiddenLayer.Failed.class);
        }
    }

    @ParameterizedTest
    @EnumSource(Abi.class)
    void anAbortedRunReturnsNoRows(Abi abi) {
        try (Model model = embeddingModel(abi, Map.of())) {
            RunControl control = new RunControl();
            control.abort();
            assertThat(model.lastHiddenLayer(RunInput.user("text", false), control))
                    .isEqualTo(new HiddenLayer.Aborted(PerfStats.NONE));
        }
    }

    @ParameterizedTest
    @EnumSource(Abi.class)
    void aRuntimeThatGeneratesAfterTheRowsIsStopped(Abi abi) {
        // fault hidden_then_generate: the states, then tokens; without the binding's stop, 4000 of them
        Path file = Sim.model(dir, "chat", Map.of("embd_size", "8", "reply_tokens", "4000", "decode_tps", "1000",
                "time_scale", "1", "init_ms", "0", "fault", "hidden_then_generate"));
        RkllmRuntime runtime = Sim.runtime(abi);
        try (Model model = runtime.load(Sim.params(runtime, file, 4096))) {
            HiddenLayer.States s = states(model.lastHiddenLayer(RunInput.user("Hello there", false),
                    new RunControl()));
            assertThat(s.rows()).hasSize(HELLO_THERE_TOKENS);
            // and a chat run after it is unaffected
            Sim.Collector out = new Sim.Collector();
            model.run(RunInput.user("[[say:still here]]", false), out, new RunControl());
            assertThat(out.text()).isEqualTo("still here");
        }
        JsonNode run = Sim.calls(file, "run").getFirst();
        assertThat(run.get("result").asText()).isEqualTo("abort");
        assertThat(run.get("generate_tokens").asInt()).isLessThan(4000);
    }

    @ParameterizedTest
    @EnumSource(Abi.class)
    void anEmbeddingModelHasNoChatAnswer(Abi abi) {
        try (Model model = embeddingModel(abi, Map.of())) {
            Sim.Collector out = new Sim.Collector();
            TokenEvent end = model.run(RunInput.user("Hello", false), out, new RunControl());
            assertThat(end).isInstanceOf(TokenEvent.Finished.class);
            assertThat(out.text()).isEmpty();
        }
        assertThat(Sim.calls(dir.resolve("embed.rkllm"), "init").getFirst().get("kind").asText())
                .isEqualTo("embedding");
    }
}
