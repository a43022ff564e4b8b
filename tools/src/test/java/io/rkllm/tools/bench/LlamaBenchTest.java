package io.rkllm.tools.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import com.fasterxml.jackson.databind.JsonNode;
import io.rkllm.llama.gguf.GgufReader;
import io.rkllm.llama.gguf.GgufSummary;
import io.rkllm.llama.gguf.TensorType;
import io.rkllm.llama.gguf.TinyLlama;
import io.rkllm.server.config.CommandLine;
import io.rkllm.server.config.ConfigException;
import io.rkllm.server.config.ConfigLoader;
import io.rkllm.server.config.ServerConfig;
import io.rkllm.server.it.LlamaTestServer;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code bench llama}'s plumbing on the tiny test model and the real library: both sides run the same prompt and
 * produce the same tokens, every parallel count is measured, and the report holds every figure. Nothing here is
 * about speed.
 */
class LlamaBenchTest {
    @TempDir
    Path dir;

    @Test
    void aRunMeasuresTheLibraryAndTheServerOnTheSamePromptAndEachParallelCount() throws Exception {
        Path folder = Files.createDirectories(dir.resolve("models").resolve("tiny"));
        TinyLlama.write(folder.resolve("tiny.gguf"), TinyLlama.Options.chat());
        Map<String, String> flags = new LinkedHashMap<>();
        flags.put("server.port", "0");
        flags.put("logging.access_log", "false");
        flags.put("engines.llama.threads", "1");
        flags.put("engines.llama.parallel", "3");
        flags.put("engines.llama.context", "512");
        flags.put("models.dir", dir.resolve("models").toString());
        ServerConfig config = new ConfigLoader(dir).load(Optional.empty(), Map.of(), flags).config();
        ByteArrayOutputStream log = new ByteArrayOutputStream();
        LlamaBench.Result result = new LlamaBench(LlamaTestServer.runtime(), config, "the tiny model",
                new LlamaBench.Plan(24, 6, 2, 1, 12, Duration.ZERO), new PrintStream(log, true, StandardCharsets.UTF_8)).run();

        assertThat(result.setup().modelId()).isEqualTo("tiny");
        assertThat(result.setup().threads()).isEqualTo(1);
        assertThat(result.setup().parallel()).isEqualTo(3);
        assertThat(result.setup().contextLength()).isEqualTo(512);
        assertThat(result.setup().contextCells()).as("one cache that 3 conversations and a spare sequence share")
                .isEqualTo(512);
        assertThat(result.setup().parameters()).isEqualTo(143_168);
        assertThat(result.rounds()).hasSize(2).allSatisfy(round -> {
            assertThat(round.libraryPromptTokens()).as("the server's prompt is the library's")
                    .isEqualTo(round.serverPromptTokens()).isBetween(24, 40);
            assertThat(round.library().prefillTokens()).isEqualTo(round.libraryPromptTokens());
            // at most the template's first tokens come from the cache (with a cache each, a copy of another
            // sequence's whole cache for them costs more than it spares: PrefixCachePolicy.OWN_CACHES_COPY_GAIN)
            assertThat(round.server().prefillTokens()).as("at most the template's first tokens come from the cache")
                    .isPositive().isLessThanOrEqualTo(round.libraryPromptTokens())
                    .isGreaterThan(round.libraryPromptTokens() - 8);
            assertThat(round.client().prefillTokens()).isEqualTo(round.server().prefillTokens());
            assertThat(round.library().generated()).as("greedy: the same tokens on both sides")
                    .isEqualTo(round.server().generated()).isEqualTo(round.client().generated());
            for (Timing t : List.of(round.library(), round.server(), round.client())) {
                assertThat(t.prefillMs()).isPositive();
                assertThat(t.prefillPerSecond()).isFinite().isPositive();
            }
            assertThat(round.client().prefillMs()).as("the client's clock includes the server's")
                    .isGreaterThanOrEqualTo(round.server().prefillMs());
            assertThat(round.cpu().library()).isPositive();
            assertThat(round.cpu().decodeThread()).as("the server's decode loop computed").isPositive();
            // the process clock's resolution (10 ms) is longer than a tiny model's request: only its sign is sure
            assertThat(round.cpu().restOfProcess()).isNotNegative();
        });
        assertThat(result.parallel()).extracting(LlamaBench.ParallelRun::chats).containsExactly(1, 2, 3);
        assertThat(result.parallel()).allSatisfy(run -> {
            assertThat(run.client()).hasSize(run.chats());
            assertThat(run.server()).hasSize(run.chats());
            assertThat(run.spanMs()).isPositive();
            assertThat(run.aggregatePerSecond()).isFinite().isPositive();
            assertThat(run.server()).allSatisfy(t -> assertThat(t.generated()).isBetween(1, 6));
        });

        String markdown = LlamaBenchReport.markdown(result);
        assertThat(markdown).contains("#### tiny: the tiny model", "143,168 parameters", "1 threads",
                "| library alone (llama-ffm) |", "| server, its own timings |",
                "| server, client's clock (HTTP, streamed) |", "**server overhead**", "| 1 |", "| 2 |", "| 3 |")
                .doesNotContain("Warning");
        JsonNode json = LlamaBenchReport.json(result);
        assertThat(json.path("bench").asText()).isEqualTo("llama");
        assertThat(json.path("threads").asInt()).isEqualTo(1);
        assertThat(json.path("conversations_at_once").asInt()).isEqualTo(3);
        assertThat(json.at("/model/parameters").asLong()).isEqualTo(143_168);
        for (String side : List.of("library", "server_timings", "server_client_clock")) {
            assertThat(json.at("/single/" + side + "/prefill_tokens_per_s").isNumber()).as(side).isTrue();
            assertThat(json.at("/single/" + side + "/fastest_prefill_tokens_per_s").isNumber()).as(side).isTrue();
        }
        assertThat(json.at("/single/overhead_percent/prefill").isNumber()).isTrue();
        assertThat(json.at("/single/rounds")).hasSize(2);
        assertThat(json.at("/single/rounds/0/cpu_ms/decode_thread").isNumber()).isTrue();
        assertThat(json.at("/single/cpu_ms_median/rest_of_process").isNumber()).isTrue();
        assertThat(json.path("parallel")).hasSize(3);
        assertThat(json.at("/parallel/2/chats").asInt()).isEqualTo(3);
        assertThat(json.at("/parallel/0/gain").asDouble()).isEqualTo(1.0);
    }

    @Test
    void ratesAndOverheadsAreComputedAlike() {
        Timing t = new Timing(100, 500, 11, 1000);
        assertThat(t.prefillPerSecond()).isEqualTo(200);
        assertThat(t.decodePerSecond()).as("the 10 tokens after the first").isEqualTo(10);
        assertThat(new Timing(10, 5, 1, 0).decodePerSecond()).isNaN();
        assertThat(LlamaBenchReport.overhead(10, 8)).isCloseTo(25, within(1e-9));
        assertThat(LlamaBenchReport.median(List.of(3.0, Double.NaN, 1.0, 2.0))).isEqualTo(2);
        assertThat(LlamaBenchReport.median(List.of(4.0, 1.0))).isEqualTo(2.5);
        LlamaBenchReport.Rates rates = LlamaBenchReport.Rates.of(List.of(t, new Timing(100, 1000, 11, 2000)));
        assertThat(rates.prefill()).isEqualTo(150);
        assertThat(rates.bestPrefill()).isEqualTo(200);
        assertThat(rates.bestDecode()).isEqualTo(10);
        Timing slower = new Timing(100, 1000, 11, 2000);
        LlamaBench.Cpu cpu = new LlamaBench.Cpu(1, 1, 1);
        List<LlamaBench.Round> rounds = List.of(new LlamaBench.Round(100, 100, t, t, slower, cpu),
                new LlamaBench.Round(100, 100, slower, slower, slower, cpu),
                new LlamaBench.Round(100, 100, t, t, slower, cpu));
        LlamaBenchReport.Overhead overhead = LlamaBenchReport.Overhead.of(rounds, LlamaBench.Round::client);
        assertThat(overhead.prefill()).as("the median of the pairs: 100, 0, 100").isEqualTo(100);
        assertThat(overhead.decode()).isEqualTo(100);
        assertThat(overhead.fastestPrefill()).as("200 against 100 tokens/s").isEqualTo(100);
        assertThat(LlamaBenchReport.Overhead.of(rounds, LlamaBench.Round::server).decode()).isZero();
    }

    @Test
    void theGeneratedModelHasTheShapeAskedFor() throws Exception {
        Map<String, String> options = new LinkedHashMap<>(Map.of("layers", "3", "width", "96", "heads", "6",
                "kv-heads", "2", "ff", "160", "type", "f32"));
        BenchModel shape = BenchModel.from(options);
        assertThat(options).isEmpty();
        Path file = dir.resolve("m.gguf");
        shape.write(file);
        GgufSummary summary = GgufSummary.of(new GgufReader().read(file));
        assertThat(summary.architecture()).isEqualTo("llama");
        assertThat(summary.blockCount()).contains(3L);
        assertThat(summary.embeddingLength()).contains(96L);
        assertThat(summary.quantisation()).isEqualTo("F32");
        long vocabulary = TinyLlama.vocabulary(shape.options()).size();
        long perLayer = 2L * 96 * 96 + 2L * 96 * 32 + 3L * 96 * 160 + 2 * 96;
        assertThat(summary.parameterCount()).isEqualTo(3 * perLayer + 2 * 96 * vocabulary + 96);
        assertThat(BenchModel.from(new LinkedHashMap<>())).isEqualTo(BenchModel.smolLm2Shape());
        assertThat(BenchModel.smolLm2Shape().type()).isEqualTo(TensorType.F16);
    }

    @Test
    void badOptionsAreRefusedWithWhatIsWrong() {
        assertThatThrownBy(() -> BenchModel.from(new LinkedHashMap<>(Map.of("type", "q4_0"))))
                .isInstanceOf(ConfigException.class).hasMessageContaining("f16 or f32");
        assertThatThrownBy(() -> BenchModel.from(new LinkedHashMap<>(Map.of("width", "100", "heads", "3"))))
                .isInstanceOf(ConfigException.class).hasMessageContaining("multiple");
        assertThatThrownBy(() -> BenchModel.from(new LinkedHashMap<>(Map.of("layers", "0"))))
                .isInstanceOf(ConfigException.class).hasMessageContaining("--layers");
        LlamaBenchCommand command = new LlamaBenchCommand(Map.of(), System.out, System.err);
        ConfigLoader loader = new ConfigLoader(dir);
        assertThatThrownBy(() -> command.run(CommandLine.parse(Set.of("bench"), Set.of(), "bench", "llama", "--gguf",
                dir.resolve("absent.gguf").toString()), loader))
                .isInstanceOf(ConfigException.class).hasMessageContaining("not a .gguf file");
        assertThatThrownBy(() -> command.run(CommandLine.parse(Set.of("bench"), Set.of(), "bench", "llama", "--tokns", "5"), loader))
                .isInstanceOf(ConfigException.class).hasMessageContaining("--tokns");
    }
}
