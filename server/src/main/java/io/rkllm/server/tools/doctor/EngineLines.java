package io.rkllm.server.tools.doctor;

import io.rkllm.server.app.Engines;
import io.rkllm.server.engine.contract.DoctorContext;
import io.rkllm.server.engine.contract.DoctorLine;
import io.rkllm.server.engine.contract.EngineProvider;
import io.rkllm.server.engine.contract.EngineSetup;
import io.rkllm.server.models.ModelDescriptor;
import java.util.ArrayList;
import java.util.List;

/**
 * The engines' part of the report: which engines can serve models here, then each provider's own lines. A line an
 * engine needs only for its own models ({@link DoctorLine#onlyForItsModels()}) is not blocking when the other engines
 * serve every model there is; what the engines are is read from their providers, never from their names.
 */
final class EngineLines {
    private final List<EngineProvider> providers;
    private final EngineSetup setup;
    private final Engines engines;
    private final List<ModelDescriptor> models;

    EngineLines(List<EngineProvider> providers, EngineSetup setup, Engines engines, List<ModelDescriptor> models) {
        this.providers = List.copyOf(providers);
        this.setup = setup;
        this.engines = engines;
        this.models = List.copyOf(models);
    }

    /** The engines line, then every provider's lines in the providers' order. */
    List<Check> checks(DoctorContext context) {
        List<Check> checks = new ArrayList<>();
        checks.add(engines());
        for (EngineProvider provider : providers) {
            List<ModelDescriptor> its = Engines.modelsOf(provider, models);
            for (DoctorLine line : provider.doctor(setup, its, context)) {
                checks.add(Check.of(line.itsModelsOnly() && othersServeAll(provider, its)
                        ? line.notBlocking(servedWithout(provider)) : line));
            }
        }
        return checks;
    }

    /**
     * Which engines can serve models here, each with the model files it runs or why it cannot (the engine's own lines
     * say how to fix a missing one). Not blocking by itself: the server starts when at least one engine is available.
     */
    private Check engines() {
        return Check.info("engines", String.join("; ", engines.engines().stream().map(e -> e.provider().title()
                + (e.opening().available().isPresent() ? ": " + endings(e.provider()) + " models"
                : ": not available")).toList()));
    }

    /** None of the models is this engine's, and the others serve them all (or, with none yet, one is there to). */
    private boolean othersServeAll(EngineProvider provider, List<ModelDescriptor> its) {
        return its.isEmpty() && models.stream().allMatch(m -> engines.available(m.facts().engine()))
                && others(provider).stream().anyMatch(p -> engines.available(p.name()));
    }

    /** Why a finding of {@code provider}'s does not block: which engines serve which models without it. */
    private String servedWithout(EngineProvider provider) {
        List<EngineProvider> serving = others(provider).stream().filter(p -> engines.available(p.name()))
                .filter(p -> models.isEmpty() || !Engines.modelsOf(p, models).isEmpty()).toList();
        String files = String.join(" and ", serving.stream().map(p -> endings(p) + " models").toList());
        String titles = String.join(" and ", serving.stream().map(p -> "the " + p.title()).toList());
        return models.isEmpty()
                ? "no model needs it yet: " + endings(provider) + " models need it; " + titles + " serve"
                        + (serving.size() == 1 ? "s " : " ") + files + " without it"
                : "the models are " + files + ", which " + titles + " serve" + (serving.size() == 1 ? "s" : "")
                        + " without it";
    }

    private List<EngineProvider> others(EngineProvider provider) {
        return providers.stream().filter(p -> !p.name().equals(provider.name())).toList();
    }

    private String endings(EngineProvider provider) {
        return String.join("/", provider.format(setup).endings());
    }
}
