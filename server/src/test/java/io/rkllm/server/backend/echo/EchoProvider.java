package io.rkllm.server.backend.echo;

import io.rkllm.server.engine.contract.DoctorContext;
import io.rkllm.server.engine.contract.DoctorLine;
import io.rkllm.server.engine.contract.EngineProvider;
import io.rkllm.server.engine.contract.EngineSetup;
import io.rkllm.server.engine.contract.Opening;
import io.rkllm.server.models.ModelDescriptor;
import io.rkllm.server.models.ModelFormat;
import java.util.List;
import java.util.Map;

/**
 * A third engine, written the way a real one is added: this folder and one more entry in the list of providers. It
 * runs {@code .echo} files (any content) by answering each prompt with its last message, word by word, after the
 * prefix its setting {@code engines.echo.prefix} gives, and embeds a text as the counts of its letters. Nothing outside
 * this folder knows it exists.
 */
public final class EchoProvider implements EngineProvider {
    static final String NAME = "echo";

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public String title() {
        return "echo engine";
    }

    @Override
    public Map<String, String> settings() {
        return Map.of("prefix", "say:");
    }

    @Override
    public ModelFormat format(EngineSetup setup) {
        return new EchoFormat();
    }

    @Override
    public Opening open(EngineSetup setup, List<ModelDescriptor> models, boolean now) {
        return new Opening.Opened(new EchoBackend(setup.config().engines().settings(NAME).get("prefix")), List.of("echo: " + models.size() + " model(s)"));
    }

    @Override
    public List<DoctorLine> doctor(EngineSetup setup, List<ModelDescriptor> models, DoctorContext context) {
        return List.of(DoctorLine.ok(NAME, "the echo engine needs no library"));
    }
}
