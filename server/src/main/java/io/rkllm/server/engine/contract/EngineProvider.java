package io.rkllm.server.engine.contract;

import io.rkllm.server.models.ModelDescriptor;
import io.rkllm.server.models.ModelFormat;
import java.util.List;
import java.util.Map;

/**
 * One engine the server can run models with, as the application sees it; each engine implements it in its own
 * backend folder, and the application keeps one list of them. It says which model files the engine runs and what it
 * reads of them (the {@link io.rkllm.server.models.ModelFacts} a model carries, which name the engine, describe the
 * file and size a loaded copy: its memory, its parallel conversations), opens the engine from the configuration or
 * says why it is unavailable, and gives its lines of the start banner and of {@code doctor}. Nothing above the
 * backends asks which engine runs a model: they ask the model's facts, or the engine by its {@link #name()}.
 */
public interface EngineProvider {

    /**
     * The engine's name: what {@code /v1/models} and Ollama's answers say runs a model ({@code rkllm},
     * {@code llama.cpp}), and how a model's facts name the engine that runs it.
     */
    String name();

    /** The engine as messages name it, after "the": "RKLLM runtime", "llama.cpp library". */
    String title();

    /**
     * Its own settings with their defaults, as text: the configuration has them under {@code engines.<name>} (the
     * file, {@code RKLLM_ENGINES_<NAME>_<KEY>}, {@code --engines.<name>.<key>}, {@code --help}), and
     * {@code setup.config().engines().settings(name())} gives them as set. The built-in engines have typed sections
     * of the configuration instead ({@code runtime}, {@code engines.llama}).
     */
    default Map<String, String> settings() {
        return Map.of();
    }

    /** The model files it runs and what it reads of them, as {@code setup} serves them. */
    ModelFormat format(EngineSetup setup);

    /**
     * Whether {@code --simulate} stands in for this engine (its simulated runtime and models): the real models
     * directory's models of the other engines are served beside the simulated ones.
     */
    default boolean simulated(EngineSetup setup) {
        return false;
    }

    /**
     * Opens the engine as the configuration says, or says why it cannot.
     *
     * @param models its models in the catalogue now
     * @param now false lets an engine that has no model yet wait for its first one before opening its library
     */
    Opening open(EngineSetup setup, List<ModelDescriptor> models, boolean now);

    /**
     * Its lines of {@code doctor}'s report: everything the engine needs (its library, its hardware, the faults of
     * its releases). {@code doctor} itself checks only what every engine shares (the configuration, the models, the
     * port) and lists the engines.
     *
     * @param models its models in the catalogue
     */
    List<DoctorLine> doctor(EngineSetup setup, List<ModelDescriptor> models, DoctorContext context);
}
