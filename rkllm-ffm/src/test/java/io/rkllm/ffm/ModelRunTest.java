package io.rkllm.ffm;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** The real binding driving the simulated runtime of each ABI. */
class ModelRunTest {
    @TempDir
    Path dir;

    private Model load(RkllmRuntime runtime, Path file, int context) {
        return runtime.load(Sim.params(runtime, file, context));
    }

    @ParameterizedTest
    @EnumSource(Abi.class)
    void defaultParamsComeFromTheLibraryByValue(Abi abi) {
        ModelParams defaults = Sim.runtime(abi).defaultParams();
        assertThat(defaults.maxContextLen()).isEqualTo(512);
        assertThat(defaults.sampling().topK()).isEqualTo(1);
        assertThat(defaults.sampling().topP()).isEqualTo(0.9f);
        assertThat(defaults.sampling().repeatPenalty()).isEqualTo(1.1f);
        assertThat(defaults.extend().nBatch()).isEqualTo(1);
    }

    @ParameterizedTest
    @EnumSource(Abi.class)
    void initPassesEveryParameterAndLogsTheRuntimeVersion(Abi abi) {
        RkllmRuntime runtime = Sim.runtime(abi);
        Path file = Sim.model(dir, "m", Map.of());
        ModelParams params = Sim.params(runtime, file, 2048).withNKeep(-1)
                .withSampling(runtime.defaultParams().sampling().withTopK(20).withTemperature(0.7f))
                .withExtend(new ExtendParams(1, true, 4, 0xF0, 1, false));
        try (Model model = runtime.load(params)) {
            assertThat(model.banner().runtimeVersion()).contains(abi == Abi.V1_2 ? "1.2.3" : "1.3.0");
            assertThat(model.banner().maxContextLimit()).hasValue(4096);
        }
        JsonNode init = Sim.calls(file, "init").getFirst();
        assertThat(init.get("abi").asText()).isEqualTo(abi.label());
        assertThat(init.get("model_path").asText()).isEqualTo(file.toString());
        assertThat(init.get("max_context_len").asInt()).isEqualTo(2048);
        assertThat(init.get("top_k").asInt()).isEqualTo(20);
        assertThat(init.get("temperature").asDouble()).isEqualTo(0.7, org.assertj.core.data.Offset.offset(1e-6));
        assertThat(init.get("n_keep").asInt()).isEqualTo(-1);
        assertThat(init.get("enabled_cpus_mask").asLong()).isEqualTo(0xF0);
        assertThat(init.get("enabled_cpus_num").asInt()).isEqualTo(4);
        assertThat(init.get("base_domain_id").asInt()).isEqualTo(1);
        assertThat(init.get("embed_flash").asInt()).isEqualTo(1);
        assertThat(Sim.calls(file, "destroy")).hasSize(1);
    }

    @ParameterizedTest
    @EnumSource(Abi.class)
    void multiByteCharactersSplitAcrossCallbacksArriveWhole(Abi abi) {
        RkllmRuntime runtime = Sim.runtime(abi);
        Path file = Sim.model(dir, "m", Map.of());
        String text = "Grüße aus 日本語 — 模型 😀 done.";
        try (Model model = load(runtime, file, 1024)) {
            Sim.Collector out = new Sim.Collector();
            TokenEvent end = model.run(RunInput.user("[[say:" + text + "]]", false), out, new RunControl());
            assertThat(end).isInstanceOf(TokenEvent.Finished.class);
            assertThat(out.text()).isEqualTo(text);
            assertThat(out.text()).doesNotContain("\uFFFD");
            List<TokenEvent.Text> pieces = out.events.stream().filter(TokenEvent.Text.class::isInstance)
                    .map(TokenEvent.Text.class::cast).toList();
            // 3-byte chunks: some callbacks end inside a character and are held back, so fewer pieces than tokens
            int tokens = ((TokenEvent.Finished) end).perf().generateTokens();
            assertThat(pieces.size()).isLessThan(tokens);
            assertThat(pieces.getLast().tokens()).isEqualTo(tokens);
        }
    }

    @ParameterizedTest
    @EnumSource(Abi.class)
    void keepHistoryAccountingIsVisibleInPerfStatsAndCacheSize(Abi abi) {
        RkllmRuntime runtime = Sim.runtime(abi);
        Path file = Sim.model(dir, "m", Map.of());
        try (Model model = load(runtime, file, 4096)) {
            TokenEvent.Finished first = (TokenEvent.Finished) model.run(RunInput.user("Hello there", true),
                    new Sim.Collector(), new RunControl());
            int afterFirst = model.kvCacheSizes()[0];
            assertThat(afterFirst).isEqualTo(first.perf().prefillTokens() + first.perf().generateTokens());

            TokenEvent.Finished second = (TokenEvent.Finished) model.run(RunInput.user("And more", true),
                    new Sim.Collector(), new RunControl());
            // the follow-up prefills only its own turn: no system prompt again
            assertThat(second.perf().prefillTokens()).isLessThan(first.perf().prefillTokens());
            int afterSecond = model.kvCacheSizes()[0];
            assertThat(afterSecond).isEqualTo(afterFirst + second.perf().prefillTokens()
                    + second.perf().generateTokens());

            model.run(RunInput.user("Discarded turn", false), new Sim.Collector(), new RunControl());
            assertThat(model.kvCacheSizes()[0]).isEqualTo(afterSecond);

            model.clearKvCache(true);
            int system = model.kvCacheSizes()[0];
            assertThat(system).isPositive().isLessThan(first.perf().prefillTokens());
            model.clearKvCache(false);
            assertThat(model.kvCacheSizes()[0]).isZero();
        }
        List<JsonNode> runs = Sim.calls(file, "run");
        assertThat(runs).extracting(r -> r.get("keep_history").asInt()).containsExactly(1, 1, 0);
        assertThat(runs.get(2).get("cache_before").asInt()).isPositive();
    }

    @ParameterizedTest
    @EnumSource(Abi.class)
    void abortFromAnotherThreadStopsTheRunWithinOneToken(Abi abi) throws Exception {
        RkllmRuntime runtime = Sim.runtime(abi);
        Path file = Sim.model(dir, "m", Map.of("time_scale", "1", "init_ms", "0", "decode_tps", "50",
                "prefill_tps", "100000"));
        try (Model model = load(runtime, file, 4096); ExecutorService pool = Executors.newSingleThreadExecutor()) {
            RunControl control = new RunControl();
            CountDownLatch threeTokens = new CountDownLatch(3);
            int[] tokensAtAbort = new int[1];
            Sim.Collector out = new Sim.Collector();
            Future<TokenEvent> run = pool.submit(() -> model.run(RunInput.user("[[tokens:500]]", false), e -> {
                out.accept(e);
                if (e instanceof TokenEvent.Text t && t.tokens() >= 3 && threeTokens.getCount() > 0) {
                    tokensAtAbort[0] = t.tokens();
                    threeTokens.countDown();
                    threeTokens.countDown();
                    threeTokens.countDown();
                }
            }, control));
            assertThat(threeTokens.await(30, TimeUnit.SECONDS)).isTrue();
            control.abort();
            TokenEvent end = run.get(30, TimeUnit.SECONDS);
            assertThat(end).isInstanceOf(TokenEvent.Finished.class);
            TokenEvent.Finished finished = (TokenEvent.Finished) end;
            assertThat(finished.aborted()).isTrue();
            // the abort lands before the next token interval ends: at most one more token was generated
            assertThat(finished.perf().generateTokens()).isBetween(tokensAtAbort[0], tokensAtAbort[0] + 1);
            // and the model serves the next run normally
            Sim.Collector next = new Sim.Collector();
            TokenEvent again = model.run(RunInput.user("[[say:ok]]", false), next, new RunControl());
            assertThat(again).isEqualTo(new TokenEvent.Finished(((TokenEvent.Finished) again).perf(), false));
            assertThat(next.text()).isEqualTo("ok");
        }
        assertThat(Sim.calls(file, "run").getFirst().get("result").asText()).isEqualTo("abort");
    }

    @ParameterizedTest
    @EnumSource(Abi.class)
    void aRunAbortedBeforeItStartsNeverReachesTheRuntime(Abi abi) {
        RkllmRuntime runtime = Sim.runtime(abi);
        Path file = Sim.model(dir, "m", Map.of());
        try (Model model = load(runtime, file, 1024)) {
            RunControl control = new RunControl();
            control.abort();
            TokenEvent end = model.run(RunInput.user("hello", true), new Sim.Collector(), control);
            assertThat(end).isEqualTo(new TokenEvent.Finished(PerfStats.NONE, true));
            assertThat(control.abort()).isFalse();
        }
        assertThat(Sim.calls(file, "run")).isEmpty();
    }

    @ParameterizedTest
    @EnumSource(Abi.class)
    void anAbortAfterTheRunEndedIsANoOpForTheNextRun(Abi abi) {
        RkllmRuntime runtime = Sim.runtime(abi);
        Path file = Sim.model(dir, "m", Map.of());
        try (Model model = load(runtime, file, 1024)) {
            RunControl first = new RunControl();
            model.run(RunInput.user("[[say:one]]", false), new Sim.Collector(), first);
            first.abort();
            Sim.Collector out = new Sim.Collector();
            TokenEvent end = model.run(RunInput.user("[[say:two]]", false), out, new RunControl());
            assertThat(((TokenEvent.Finished) end).aborted()).isFalse();
            assertThat(out.text()).isEqualTo("two");
        }
    }

    @ParameterizedTest
    @EnumSource(Abi.class)
    void aRuntimeErrorLeavesTheModelUsable(Abi abi) {
        RkllmRuntime runtime = Sim.runtime(abi);
        Path file = Sim.model(dir, "m", Map.of("fault", "error_after=5"));
        try (Model model = load(runtime, file, 1024)) {
            Sim.Collector out = new Sim.Collector();
            TokenEvent end = model.run(RunInput.user("[[tokens:40]]", false), out, new RunControl());
            assertThat(end).isInstanceOf(TokenEvent.Failed.class);
            assertThat(out.events.stream().filter(TokenEvent.Text.class::isInstance).count()).isPositive();
            Sim.Collector next = new Sim.Collector();
            TokenEvent again = model.run(RunInput.user("[[say:fine]]", false), next, new RunControl());
            assertThat(again).isInstanceOf(TokenEvent.Finished.class);
            assertThat(next.text()).isEqualTo("fine");
        }
    }

    @ParameterizedTest
    @EnumSource(Abi.class)
    void anOverlongPromptFailsTheRunAndNotTheModel(Abi abi) {
        RkllmRuntime runtime = Sim.runtime(abi);
        Path file = Sim.model(dir, "m", Map.of());
        try (Model model = load(runtime, file, 64)) {
            TokenEvent end = model.run(RunInput.user("word ".repeat(200), true), new Sim.Collector(),
                    new RunControl());
            assertThat(end).isInstanceOf(TokenEvent.Failed.class);
            assertThat(model.kvCacheSizes()[0]).isZero();
            assertThat(model.run(RunInput.user("[[say:short]]", false), new Sim.Collector(), new RunControl()))
                    .isInstanceOf(TokenEvent.Finished.class);
        }
    }

    @ParameterizedTest
    @EnumSource(Abi.class)
    void failedInitsAreExceptionsAndTheRuntimeStillLoadsModels(Abi abi) {
        RkllmRuntime runtime = Sim.runtime(abi);
        assertThatThrownBy(() -> load(runtime, Sim.model(dir, "bad", Map.of("fault", "init_fail")), 1024))
                .isInstanceOf(RkllmException.class).hasMessageContaining("rkllm_init failed");
        assertThatThrownBy(() -> load(runtime, Sim.model(dir, "null", Map.of("fault", "init_null")), 1024))
                .isInstanceOf(RkllmException.class).hasMessageContaining("no handle");
        assertThatThrownBy(() -> load(runtime, dir.resolve("missing.rkllm"), 1024))
                .isInstanceOf(RkllmException.class).hasMessageContaining("rkllm_init failed");
        assertThatThrownBy(() -> load(runtime, Sim.model(dir, "big", Map.of()), 8192))
                .isInstanceOf(RkllmException.class)
                .hasMessageContaining("max_context[8192] must be less than the model's max_context_limit[4096]");
        try (Model model = load(runtime, Sim.model(dir, "good", Map.of()), 1024)) {
            Sim.Collector out = new Sim.Collector();
            model.run(RunInput.user("[[say:alive]]", false), out, new RunControl());
            assertThat(out.text()).isEqualTo("alive");
        }
    }

    @ParameterizedTest
    @EnumSource(Abi.class)
    void perRunSamplingAndTokenLimitExistOnlyOn13(Abi abi) {
        RkllmRuntime runtime = Sim.runtime(abi);
        Path file = Sim.model(dir, "m", Map.of());
        SamplingParams sampling = runtime.defaultParams().sampling().withTopK(40).withTopP(0.5f)
                .withTemperature(0.2f).withPresencePenalty(1.5f);
        try (Model model = load(runtime, file, 1024)) {
            RunInput input = RunInput.user("[[tokens:30]]", false).withSampling(sampling).withMaxNewTokens(7);
            if (abi == Abi.V1_2) {
                assertThatThrownBy(() -> model.run(input, new Sim.Collector(), new RunControl()))
                        .isInstanceOf(UnsupportedOperationException.class).hasMessageContaining("runtime 1.3");
                return;
            }
            TokenEvent.Finished end = (TokenEvent.Finished) model.run(input, new Sim.Collector(), new RunControl());
            assertThat(end.perf().generateTokens()).isEqualTo(7);
        }
        JsonNode run = Sim.calls(file, "run").getFirst();
        assertThat(run.get("sampling").get("top_k").asInt()).isEqualTo(40);
        assertThat(run.get("sampling").get("top_p").asDouble()).isEqualTo(0.5);
        assertThat(run.get("sampling").get("temperature").asDouble()).isEqualTo(0.2, org.assertj.core.data.Offset.offset(1e-6));
        assertThat(run.get("sampling").get("presence_penalty").asDouble()).isEqualTo(1.5);
        assertThat(run.get("max_new_tokens").asInt()).isEqualTo(7);
    }

    @ParameterizedTest
    @EnumSource(Abi.class)
    void roleThinkingTemplateToolsAndLoraReachTheRuntime(Abi abi) throws Exception {
        RkllmRuntime runtime = Sim.runtime(abi);
        Path file = Sim.model(dir, "m", Map.of("thinking", "1"));
        Path lora = Files.writeString(dir.resolve("adapter.rkllm"), "lora");
        try (Model model = load(runtime, file, 2048)) {
            Sim.Collector thought = new Sim.Collector();
            model.run(RunInput.user("Why is the sky blue?", false).withThinking(true), thought, new RunControl());
            assertThat(thought.text()).startsWith("<think>\n").contains("</think>");

            model.setFunctionTools("You can call tools.", "[{\"type\":\"function\",\"function\":{\"name\":"
                    + "\"get_weather\",\"parameters\":{\"type\":\"object\",\"properties\":{\"city\":{\"type\":"
                    + "\"string\"}}}}}]", "<tool_response>");
            Sim.Collector call = new Sim.Collector();
            model.run(RunInput.user("What does get_weather say for Paris?", true), call, new RunControl());
            assertThat(call.text()).contains("<tool_call>").contains("\"name\": \"get_weather\"");
            model.run(RunInput.user("{\"temp\": 21}", true).withRole("tool"), new Sim.Collector(), new RunControl());

            model.setChatTemplate("<sys>", "<u>", "</u><a>");
            model.loadLora(new LoraAdapter(lora, "style", 0.5f));
            model.run(RunInput.user("[[say:x]]", false).withLora("style"), new Sim.Collector(), new RunControl());
        }
        List<JsonNode> runs = Sim.calls(file, "run");
        assertThat(runs.get(0).get("enable_thinking").asBoolean()).isTrue();
        assertThat(runs.get(2).get("role").asText()).isEqualTo("tool");
        assertThat(runs.get(3).get("lora").asText()).isEqualTo("style");
        assertThat(runs.get(3).get("prefilled_text").asText()).contains("<u>[[say:x]]</u><a>");
        assertThat(Sim.calls(file, "set_function_tools").getFirst().get("tools").asText()).contains("get_weather");
        assertThat(Sim.calls(file, "set_chat_template").getFirst().get("prompt_prefix").asText()).isEqualTo("<u>");
        assertThat(Sim.calls(file, "load_lora").getFirst().get("name").asText()).isEqualTo("style");
    }

    @ParameterizedTest
    @EnumSource(Abi.class)
    void promptCacheFilesRoundTrip(Abi abi) {
        RkllmRuntime runtime = Sim.runtime(abi);
        Path file = Sim.model(dir, "m", Map.of());
        Path cache = dir.resolve("conversation.cache");
        try (Model model = load(runtime, file, 2048)) {
            model.run(RunInput.user("Remember this", true).withSavePromptCache(cache), new Sim.Collector(),
                    new RunControl());
            assertThat(cache).exists();
            model.clearKvCache(false);
            model.loadPromptCache(cache);
            assertThat(model.kvCacheSizes()[0]).isPositive();
            model.releasePromptCache();
            assertThatThrownBy(() -> model.loadPromptCache(dir.resolve("nope.cache")))
                    .isInstanceOf(RkllmException.class);
        }
    }

    @ParameterizedTest
    @EnumSource(Abi.class)
    void twoModelsRunAtOnceOnTwoThreads(Abi abi) throws Exception {
        RkllmRuntime runtime = Sim.runtime(abi);
        try (Model a = load(runtime, Sim.model(dir, "a", Map.of()), 1024);
             Model b = load(runtime, Sim.model(dir, "b", Map.of()), 1024);
             ExecutorService pool = Executors.newFixedThreadPool(2)) {
            Future<String> fa = pool.submit(() -> {
                Sim.Collector out = new Sim.Collector();
                a.run(RunInput.user("[[say:from a ünïcödé]]", false), out, new RunControl());
                return out.text();
            });
            Future<String> fb = pool.submit(() -> {
                Sim.Collector out = new Sim.Collector();
                b.run(RunInput.user("[[say:from b 日本]]", false), out, new RunControl());
                return out.text();
            });
            assertThat(fa.get(30, TimeUnit.SECONDS)).isEqualTo("from a ünïcödé");
            assertThat(fb.get(30, TimeUnit.SECONDS)).isEqualTo("from b 日本");
        }
    }

    @ParameterizedTest
    @EnumSource(Abi.class)
    void aDestroyedModelRefusesCalls(Abi abi) {
        RkllmRuntime runtime = Sim.runtime(abi);
        Model model = load(runtime, Sim.model(dir, "m", Map.of()), 1024);
        model.close();
        model.close();
        assertThat(model.isClosed()).isTrue();
        assertThatThrownBy(() -> model.run(RunInput.user("x", false), e -> { }, new RunControl()))
                .isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(model::kvCacheSizes).isInstanceOf(IllegalStateException.class);
    }
}
