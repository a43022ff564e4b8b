package io.rkllm.ffm;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.lang.foreign.Arena;
import java.lang.foreign.SymbolLookup;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** A library without some optional functions still serves; those calls report unsupported. */
class UnsupportedFunctionTest {
    @TempDir
    Path dir;

    @ParameterizedTest
    @EnumSource(Abi.class)
    void missingOptionalFunctionsAreReportedNotCrashed(Abi abi) {
        SymbolLookup real = SymbolLookup.libraryLookup(Sim.library(abi), Arena.global());
        Set<String> hidden = Set.of("rkllm_load_lora", "rkllm_get_kv_cache_size", "rkllm_set_function_tools");
        SymbolLookup trimmed = name -> hidden.contains(name) ? Optional.empty() : real.find(name);
        NativeApi api = NativeApi.bind(trimmed, AbiLayouts.of(abi));
        assertThat(api.supports(RkllmFunction.LOAD_LORA)).isFalse();
        assertThat(api.supports(RkllmFunction.RUN)).isTrue();
        ModelParams params = Sim.params(Sim.runtime(abi), Sim.model(dir, "m", Map.of()), 512);
        try (Model model = Model.init(api, params, new NativeOutputCapture())) {
            assertThat(model.supports(RkllmFunction.GET_KV_CACHE_SIZE)).isFalse();
            assertThatThrownBy(model::kvCacheSizes).isInstanceOf(UnsupportedFunctionException.class)
                    .hasMessageContaining("rkllm_get_kv_cache_size");
            assertThatThrownBy(() -> model.loadLora(new LoraAdapter(dir.resolve("x"), "x", 1f)))
                    .isInstanceOf(UnsupportedFunctionException.class);
            Sim.Collector out = new Sim.Collector();
            model.run(RunInput.user("[[say:still works]]", false), out, new RunControl());
            assertThat(out.text()).isEqualTo("still works");
        }
    }

    @ParameterizedTest
    @EnumSource(Abi.class)
    void aLibraryWithoutARequiredFunctionIsRefused(Abi abi) {
        SymbolLookup real = SymbolLookup.libraryLookup(Sim.library(abi), Arena.global());
        SymbolLookup trimmed = name -> name.equals("rkllm_run") ? Optional.empty() : real.find(name);
        assertThatThrownBy(() -> NativeApi.bind(trimmed, AbiLayouts.of(abi)))
                .isInstanceOf(UnsupportedFunctionException.class).hasMessageContaining("rkllm_run");
    }
}
