package io.rkllm.server.architecture;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.Architectures.layeredArchitecture;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The architecture, as rules the build enforces. Read top to bottom, this is the map of the server:
 *
 * <pre>
 *  launcher (io.rkllm.server: Main)   tools (doctor, fuzz, soak, bench, cds-archive)
 *        \                              /
 *         app: ServerApp wires what serves (runtime, engine, pipeline, HTTP, metrics)
 *                          |
 *  http (+ api: wire parsing, security: keys and CORS)   parse, validate, encode JSON / SSE / NDJSON, errors
 *                          |        internal records only below: ChatRequest, PreparedChat, Answer, Failure
 *  pipeline   model service, prompts, RAG, the KV cache policy, output scanning, tasks
 *                          |        RunRequest, RunPlan, GenerationEvent only below
 *  engine     model registry, one worker thread per model, queue, generations
 *                          |        Java records only above: no MemorySegment leaves the binding
 *  rkllm-ffm  the binding: layouts, downcalls, the result upcall
 * </pre>
 *
 * Beside the layers: {@code domain} (Failure, CancelReason: the words every layer shares), {@code models}
 * (discovery and the catalogue: plain records), {@code config}, {@code metrics}, {@code logging}.
 */
class LayerRulesTest {
    private static JavaClasses classes;

    @BeforeAll
    static void importClasses() {
        classes = new ClassFileImporter().withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
                .importPackages("io.rkllm");
    }

    @Test
    void noPackageDependsOnItselfThroughOthers() {
        slices().matching("io.rkllm.(**)").should().beFreeOfCycles().check(classes);
    }

    @Test
    void eachLayerIsUsedOnlyByTheOneAboveIt() {
        layeredArchitecture().consideringOnlyDependenciesInLayers()
                .layer("Launcher").definedBy("io.rkllm.server")
                .layer("Tools").definedBy("io.rkllm.server.tools..")
                .layer("App").definedBy("io.rkllm.server.app..")
                .layer("Http").definedBy("io.rkllm.server.http..", "io.rkllm.server.api..",
                        "io.rkllm.server.security..")
                .layer("Metrics").definedBy("io.rkllm.server.metrics..")
                .layer("Pipeline").definedBy("io.rkllm.server.pipeline..")
                .layer("Engine").definedBy("io.rkllm.server.engine..")
                .layer("Config").definedBy("io.rkllm.server.config..")
                .layer("Binding").definedBy("io.rkllm.ffm..")
                .whereLayer("Launcher").mayNotBeAccessedByAnyLayer()
                .whereLayer("Tools").mayOnlyBeAccessedByLayers("Launcher")
                .whereLayer("App").mayOnlyBeAccessedByLayers("Launcher", "Tools")
                .whereLayer("Http").mayOnlyBeAccessedByLayers("App")
                .whereLayer("Metrics").mayOnlyBeAccessedByLayers("Http", "App")
                // the launcher's and the tools' commands may read serving decisions (`models` shows them)
                .whereLayer("Pipeline").mayOnlyBeAccessedByLayers("Http", "Metrics", "App", "Tools", "Launcher")
                .whereLayer("Engine").mayOnlyBeAccessedByLayers("Pipeline", "Metrics", "App")
                .whereLayer("Binding").mayOnlyBeAccessedByLayers("Engine", "App", "Tools", "Launcher", "Config")
                .check(classes);
    }

    @Test
    void theHttpLayerSeesNeitherTheEngineNorTheBinding() {
        noClasses().that().resideInAnyPackage("io.rkllm.server.http..", "io.rkllm.server.api..",
                        "io.rkllm.server.security..")
                .should().dependOnClassesThat().resideInAnyPackage("io.rkllm.server.engine..", "io.rkllm.ffm..")
                .check(classes);
    }

    @Test
    void eachApiFamilyIsItsOwnFolder() {
        // a family uses the shared HTTP core and the shared parsing (api), never another family
        slices().matching("io.rkllm.server.http.(*)..").should().notDependOnEachOther().check(classes);
        noClasses().that().resideInAnyPackage("io.rkllm.server.api..", "io.rkllm.server.security..")
                .should().dependOnClassesThat().resideInAPackage("io.rkllm.server.http..")
                .check(classes);
    }

    @Test
    void thePipelineKnowsNoHttpNoWireFormatAndNoNativeType() {
        noClasses().that().resideInAPackage("io.rkllm.server.pipeline..")
                .should().dependOnClassesThat().resideInAnyPackage("io.javalin..", "jakarta.servlet..",
                        "org.eclipse.jetty..", "io.rkllm.server.http..", "io.rkllm.server.api..", "io.rkllm.ffm..")
                .check(classes);
    }

    @Test
    void jsonNeverReachesTheEngineOrTheBinding() {
        noClasses().that().resideInAnyPackage("io.rkllm.server.engine..", "io.rkllm.ffm..")
                .should().dependOnClassesThat().resideInAPackage("com.fasterxml.jackson..")
                .check(classes);
    }

    @Test
    void servingCodeNeverUsesTheTools() {
        noClasses().that().resideOutsideOfPackages("io.rkllm.server", "io.rkllm.server.tools..")
                .should().dependOnClassesThat().resideInAPackage("io.rkllm.server.tools..")
                .check(classes);
    }

    @Test
    void theSharedWordsDependOnNothingOfTheServer() {
        noClasses().that().resideInAnyPackage("io.rkllm.server.domain..", "io.rkllm.server.models..")
                .should().dependOnClassesThat().resideInAnyPackage("io.rkllm.server.engine..",
                        "io.rkllm.server.pipeline..", "io.rkllm.server.http..", "io.rkllm.server.api..",
                        "io.rkllm.server.app..", "io.rkllm.ffm..")
                .check(classes);
    }

    @Test
    void theBindingAndTheRagModuleKnowNothingOfTheServer() {
        noClasses().that().resideInAnyPackage("io.rkllm.ffm..", "io.rkllm.rag..")
                .should().dependOnClassesThat().resideInAPackage("io.rkllm.server..")
                .check(classes);
    }
}
