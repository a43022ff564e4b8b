package io.rkllm.server.app;

import io.rkllm.server.engine.Backends;
import io.rkllm.server.engine.contract.Backend;
import io.rkllm.server.engine.contract.EngineProvider;
import io.rkllm.server.engine.contract.EngineSetup;
import io.rkllm.server.engine.contract.Opening;
import io.rkllm.server.engine.contract.RuntimeInfo;
import io.rkllm.server.models.ModelDescriptor;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Stream;

/**
 * The engines of this server, each provider with what opening it gave: its backend, one that opens when its first
 * model loads, or why it is unavailable. A missing library does not end the server by itself: the server serves the
 * models of the engines it has, and a model whose engine is missing fails to load with that engine's reason. The
 * start banner and {@code doctor} say which engines there are.
 */
public record Engines(List<Engine> engines) {

    /** One engine: its provider and what opening it gave. */
    public record Engine(EngineProvider provider, Opening opening) {
    }

    public Engines {
        engines = List.copyOf(engines);
    }

    /**
     * Opens every engine of {@code providers} for {@code models} (the catalogue now). An engine none of whose models is
     * there yet may wait for its first one; when no engine opened at all, those open now, so that a machine that has
     * none is told so at the start.
     */
    public static Engines open(List<EngineProvider> providers, EngineSetup setup, List<ModelDescriptor> models) {
        List<Engine> opened = new ArrayList<>();
        for (EngineProvider provider : providers) {
            List<ModelDescriptor> its = modelsOf(provider, models);
            opened.add(new Engine(provider, provider.open(setup, its, !its.isEmpty())));
        }
        if (opened.stream().noneMatch(e -> e.opening() instanceof Opening.Opened)) {
            opened.replaceAll(e -> e.opening() instanceof Opening.Deferred
                    ? new Engine(e.provider(), e.provider().open(setup, modelsOf(e.provider(), models), true)) : e);
        }
        return new Engines(opened);
    }

    /** One engine, with a backend already opened (a bench that measures it alone). */
    public static Engines only(EngineProvider provider, Backend backend) {
        return new Engines(List.of(new Engine(provider, new Opening.Opened(backend, List.of()))));
    }

    /** Every engine opened now, whether or not its models are there (what {@code doctor} checks). */
    public static Engines openNow(List<EngineProvider> providers, EngineSetup setup, List<ModelDescriptor> models) {
        return new Engines(providers.stream().map(p -> new Engine(p, p.open(setup, modelsOf(p, models), true)))
                .toList());
    }

    /** The models of {@code provider}'s engine among {@code models}. */
    public static List<ModelDescriptor> modelsOf(EngineProvider provider, List<ModelDescriptor> models) {
        return models.stream().filter(m -> m.facts().engine().equals(provider.name())).toList();
    }

    /**
     * These engines, when they can serve something: at least one must be available, and an unavailable one its
     * provider calls required (its library named by the configuration; the RKLLM runtime when its models are there)
     * stops the server when no available engine has a model to serve (a wrong library path on a board, instead of a
     * server that lists models it can never load). An engine turned off, or one simply not installed beside an empty
     * models directory, does not: its models are listed and fail to load with the reason, a fresh install starts, and
     * models can be pulled.
     *
     * @throws StartupException saying why each engine is missing (with the fix)
     */
    public Engines requireFor(List<ModelDescriptor> models) {
        List<Opening.Unavailable> missing = engines.stream().map(Engine::opening)
                .flatMap(o -> o instanceof Opening.Unavailable u ? Stream.of(u)
                        : Stream.empty()).toList();
        if (missing.size() == engines.size() && !engines.isEmpty()) {
            StringBuilder why = new StringBuilder(missing.getFirst().reason());
            for (Engine e : engines.subList(1, engines.size())) {
                why.append("\nand no ").append(e.provider().title()).append(" either: ")
                        .append(((Opening.Unavailable) e.opening()).reason());
            }
            throw new StartupException(why.toString());
        }
        boolean servable = models.stream().anyMatch(m -> available(m.facts().engine()));
        for (Engine e : engines) {
            if (e.opening() instanceof Opening.Unavailable u && u.required() && !servable) {
                throw new StartupException(u.reason() + "\n(without it the server serves only the models of "
                        + String.join(" and ", engines.stream().filter(o -> o.opening().available().isPresent())
                                .map(o -> o.provider().name()).toList()) + ", and the models directory has none)");
            }
        }
        return this;
    }

    /** Whether the engine of that name has a backend (opened, or opened at its first load). */
    public boolean available(String engine) {
        return engines.stream().anyMatch(e -> e.provider().name().equals(engine)
                && e.opening().available().isPresent());
    }

    /** The runtime of the engine of that name, when it was opened at the start. */
    public Optional<RuntimeInfo> runtime(String engine) {
        return engines.stream().filter(e -> e.provider().name().equals(engine))
                .flatMap(e -> e.opening() instanceof Opening.Opened o ? Stream.of(o.backend()) : Stream.empty())
                .map(Backend::info).findFirst();
    }

    /** The start banner's lines about the engines, in the providers' order. */
    public List<String> banner() {
        return engines.stream().flatMap(e -> e.opening().banner().stream()).toList();
    }

    /** The backends the registry loads models with, by engine, and the reason of each engine that has none. */
    public Backends backends() {
        Map<String, Backend> available = new LinkedHashMap<>();
        Map<String, Backends.Unavailable> unavailable = new LinkedHashMap<>();
        for (Engine e : engines) {
            switch (e.opening()) {
                case Opening.Opened o -> available.put(e.provider().name(), o.backend());
                case Opening.Deferred d -> available.put(e.provider().name(), d.backend());
                case Opening.Unavailable u -> unavailable.put(e.provider().name(),
                        new Backends.Unavailable(e.provider().title(), u.reason()));
            }
        }
        return new Backends(available, unavailable);
    }
}
