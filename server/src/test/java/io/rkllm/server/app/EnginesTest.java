package io.rkllm.server.app;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.rkllm.llama.gguf.TinyLlama;
import io.rkllm.server.backend.llama.LlamaProvider;
import io.rkllm.server.backend.rkllm.RkllmProvider;
import io.rkllm.server.config.ConfigLoader;
import io.rkllm.server.config.ServerConfig;
import io.rkllm.server.engine.contract.ChatPrompt;
import io.rkllm.server.engine.contract.Backend;
import io.rkllm.server.engine.contract.BackendModel;
import io.rkllm.server.engine.contract.EngineSetup;
import io.rkllm.server.engine.contract.LoadContext;
import io.rkllm.server.engine.contract.ModelLoad;
import io.rkllm.server.engine.contract.Opening;
import io.rkllm.server.engine.contract.RuntimeInfo;
import io.rkllm.server.engine.contract.Sampling;
import io.rkllm.server.models.ModelDescriptor;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * When the server refuses to start for a missing engine: only when an engine its provider calls required (a library
 * the configuration names; the RKLLM runtime when its models are there) is missing and no other engine has a model to
 * serve. An engine turned off in the configuration never stops it: its models are listed and fail to load with the
 * reason.
 */
class EnginesTest {
    @TempDir
    Path dir;

    /** An RKLLM runtime that opened (never asked to load here). */
    private static final Backend OPENED = new Backend() {
        @Override
        public RuntimeInfo info() {
            return new RuntimeInfo("RKLLM runtime", "1.3", false, new Sampling(1, 1, 0, 1, 0, 0), true, false,
                    ChatPrompt.Form.TEXTS);
        }

        @Override
        public BackendModel load(ModelLoad load, LoadContext context) {
            throw new UnsupportedOperationException();
        }
    };

    private ServerConfig config(Map<String, String> flags) {
        return new ConfigLoader(dir).load(Optional.empty(), Map.of(), flags).config();
    }

    private List<ModelDescriptor> discover(ServerConfig config) {
        return EngineProviders.discovery(EngineSetup.of(config)).discover(dir.resolve("models")).models();
    }

    private void gguf() throws IOException {
        Path folder = Files.createDirectories(dir.resolve("models/tiny"));
        TinyLlama.write(folder.resolve("tiny.gguf"), TinyLlama.Options.chat());
    }

    private void rkllm() throws IOException {
        Path folder = Files.createDirectories(dir.resolve("models/m"));
        Files.writeString(folder.resolve("m.rkllm"), "#rkllm-sim 1\n");
    }

    @Test
    void llamaTurnedOffBesideAnOpenedNpuRuntimeStartsWithItsGgufModelsListed() throws IOException {
        gguf();
        ServerConfig config = config(Map.of("engines.llama.enabled", "false"));
        List<ModelDescriptor> models = discover(config);
        assertThat(models).extracting(m -> m.facts().engine()).containsExactly(LlamaProvider.NAME);
        Opening llama = new LlamaProvider().open(EngineSetup.of(config), models, true);
        assertThat(llama).isInstanceOf(Opening.Unavailable.class);
        Engines engines = new Engines(List.of(
                new Engines.Engine(new RkllmProvider(), new Opening.Opened(OPENED, List.of())),
                new Engines.Engine(new LlamaProvider(), llama)));

        assertThat(engines.requireFor(models)).isSameAs(engines);
        assertThatThrownBy(() -> engines.backends().forModel("tiny", LlamaProvider.NAME))
                .hasMessageContaining("engines.llama.enabled is false");
    }

    @Test
    void npuModelsWithoutTheirRuntimeAndNothingElseToServeStopTheStart() throws IOException {
        rkllm();
        ServerConfig config = config(Map.of("runtime.library", dir.resolve("nowhere/librkllmrt.so").toString()));
        List<ModelDescriptor> models = discover(config);
        Engines engines = Engines.open(List.of(new RkllmProvider(), new LlamaProvider()), EngineSetup.of(config),
                models);

        assertThatThrownBy(() -> engines.requireFor(models)).isInstanceOf(StartupException.class)
                .hasMessageContaining("librkllmrt.so");
    }

    @Test
    void aMissingNpuRuntimeBesideGgufModelsStarts() throws IOException {
        gguf();
        rkllm();
        ServerConfig config = config(Map.of("runtime.library", dir.resolve("nowhere/librkllmrt.so").toString()));
        List<ModelDescriptor> models = discover(config);
        Engines engines = Engines.open(List.of(new RkllmProvider(), new LlamaProvider()), EngineSetup.of(config),
                models);

        assertThat(engines.requireFor(models)).isSameAs(engines);
    }
}
