package io.rkllm.server.architecture;

import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideInAPackage;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideOutsideOfPackage;
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
 *  launcher (io.rkllm.server: Main)   tools (doctor, launch, pull; the ToolCommand interface through which Main
 *        \                              /  finds the tools module's commands: bench, fuzz, soak, cds-archive)
 *        \                             /    (the harness, a server on the simulated runtime and raw HTTP for the
 *         \                           /      tests and the tools module, is compiled with them: not in this jar)
 *         app: ServerApp wires what serves (backends, engine, pipeline, HTTP, metrics); EngineProviders is
 *              the one list of engines, whose formats say which engine runs a model file
 *                          |                                        \
 *  http (+ api: wire parsing, security: keys and CORS)              |
 *                          |        internal records only below: ChatRequest, PreparedChat, Answer, Failure
 *  pipeline   model service, prompts, RAG, context fit, output scanning, tasks
 *                          |        ChatPrompt, GenerationEvent, CacheContents only below
 *  engine     model registry, one worker thread per model, queue, lifecycle, load policy
 *  engine.contract  what backends implement and providers open: Backend, BackendModel, ChatPrompt, EngineProvider
 *                          ^                                        |
 *  backend    one package per engine (backend.rkllm, backend.llama), each with its provider and its own cache
 *             policy; the only serving code that sees its binding's native types
 *                          |        Java records only above: no MemorySegment leaves a backend
 *  rkllm-ffm (io.rkllm.ffm), llama-ffm (io.rkllm.llama): the bindings, layouts, downcalls, upcalls
 * </pre>
 *
 * Beside the layers: {@code domain} (Failure, CancelReason: the words every layer shares), {@code models}
 * (discovery and the catalogue: plain records), {@code config}, {@code metrics}, {@code logging}, and
 * {@code download} (the Hub client, transfers, the models directory as pulls write it), which the {@code pull}
 * command, the app and the HTTP routes call and which knows nothing of them; {@code text} (scanning text that holds
 * string literals), which serving code of every layer may use and which uses nothing of the project. The tools
 * module (io.rkllm.tools: the benches, fuzz, soak, cds-archive) depends on the server and is not part of it: its
 * own rules are in tools/src/test (ToolsRulesTest).
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
                .layer("Engine").definedBy("io.rkllm.server.engine")
                .layer("EngineContract").definedBy("io.rkllm.server.engine.contract..")
                .layer("Backend").definedBy("io.rkllm.server.backend..")
                .layer("Config").definedBy("io.rkllm.server.config..")
                .layer("Download").definedBy("io.rkllm.server.download..")
                .layer("Binding").definedBy("io.rkllm.ffm..", "io.rkllm.llama..")
                .whereLayer("Launcher").mayNotBeAccessedByAnyLayer()
                .whereLayer("Tools").mayOnlyBeAccessedByLayers("Launcher")
                .whereLayer("App").mayOnlyBeAccessedByLayers("Launcher", "Tools")
                .whereLayer("Http").mayOnlyBeAccessedByLayers("App")
                .whereLayer("Metrics").mayOnlyBeAccessedByLayers("Http", "App")
                // the launcher's and the tools' commands may read serving decisions (`models` shows them)
                .whereLayer("Pipeline").mayOnlyBeAccessedByLayers("Http", "Metrics", "App", "Tools", "Launcher")
                .whereLayer("Engine").mayOnlyBeAccessedByLayers("Pipeline", "Metrics", "App")
                // what backends implement and providers open: the launcher and the tools open engines through it
                .whereLayer("EngineContract").mayOnlyBeAccessedByLayers("Engine", "Pipeline", "Metrics", "App",
                        "Backend", "Tools", "Launcher")
                // the app wiring chooses the backends: nothing that serves requests names one
                .whereLayer("Backend").mayOnlyBeAccessedByLayers("App")
                .whereLayer("Binding").mayOnlyBeAccessedByLayers("Backend", "App", "Tools", "Launcher",
                        "Config")
                // downloads are called by the pull command, the app and the HTTP routes; no engine learns of them
                .whereLayer("Download").mayOnlyBeAccessedByLayers("Http", "App", "Tools", "Launcher")
                .check(classes);
    }

    @Test
    void theGenericEngineAndItsContractNameNoEngine() {
        // what only the NPU needs (its lock, its turns) lives in its backend, behind the contract
        noClasses().that().resideInAnyPackage("io.rkllm.server.engine..")
                .should().haveSimpleNameContaining("Npu").orShould().haveSimpleNameContaining("Rkllm")
                .orShould().haveSimpleNameContaining("Llama").orShould().haveSimpleNameContaining("Rknn")
                .because("the engine runs any backend; each backend's own words stay in its package")
                .check(classes);
    }

    @Test
    void theHttpLayerSeesNeitherTheEngineNorABackendNorABinding() {
        noClasses().that().resideInAnyPackage("io.rkllm.server.http..", "io.rkllm.server.api..",
                        "io.rkllm.server.security..")
                .should().dependOnClassesThat().resideInAnyPackage("io.rkllm.server.engine..",
                        "io.rkllm.server.backend..", "io.rkllm.ffm..", "io.rkllm.llama..")
                .check(classes);
    }

    @Test
    void nativeTypesAppearInServingCodeOnlyInTheirBackend() {
        noClasses().that().resideInAnyPackage("io.rkllm.server.engine..", "io.rkllm.server.pipeline..",
                        "io.rkllm.server.http..", "io.rkllm.server.api..", "io.rkllm.server.security..",
                        "io.rkllm.server.metrics..", "io.rkllm.server.models..", "io.rkllm.server.domain..")
                .should().dependOnClassesThat().resideInAnyPackage("io.rkllm.ffm..", "io.rkllm.llama")
                .check(classes);
        // the GGUF reader is pure Java (no native type), but GGUF is llama.cpp's: its backend reads headers with it
        noClasses().that().resideInAnyPackage("io.rkllm.server.engine..", "io.rkllm.server.pipeline..",
                        "io.rkllm.server.http..", "io.rkllm.server.api..", "io.rkllm.server.security..",
                        "io.rkllm.server.metrics..", "io.rkllm.server.domain..", "io.rkllm.server.models..")
                .should().dependOnClassesThat().resideInAnyPackage("io.rkllm.llama.gguf..")
                .check(classes);
        noClasses().that().resideInAPackage("io.rkllm.server.backend..")
                .and().resideOutsideOfPackage("io.rkllm.server.backend.rkllm..")
                .should().dependOnClassesThat().resideInAPackage("io.rkllm.ffm..")
                .check(classes);
        noClasses().that().resideInAPackage("io.rkllm.server.backend..")
                .and().resideOutsideOfPackage("io.rkllm.server.backend.llama..")
                .should().dependOnClassesThat().resideInAPackage("io.rkllm.llama..")
                .check(classes);
    }

    @Test
    void theEngineAndThePipelineDependOnNoBackendAndBackendsNotOnEachOther() {
        noClasses().that().resideInAnyPackage("io.rkllm.server.engine..", "io.rkllm.server.pipeline..",
                        "io.rkllm.server.metrics..")
                .should().dependOnClassesThat().resideInAPackage("io.rkllm.server.backend..")
                .check(classes);
        noClasses().that().resideInAPackage("io.rkllm.server.backend..")
                .should().dependOnClassesThat().resideInAnyPackage("io.rkllm.server.pipeline..",
                        "io.rkllm.server.http..", "io.rkllm.server.api..")
                .check(classes);
        slices().matching("io.rkllm.server.backend.(*)..").should().notDependOnEachOther().check(classes);
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
                        "org.eclipse.jetty..", "io.rkllm.server.http..", "io.rkllm.server.api..",
                        "io.rkllm.server.backend..", "io.rkllm.ffm..", "io.rkllm.llama..")
                .check(classes);
    }

    @Test
    void jsonNeverReachesTheEngineTheBackendsOrTheBindings() {
        noClasses().that().resideInAnyPackage("io.rkllm.server.engine..", "io.rkllm.server.backend..",
                        "io.rkllm.ffm..", "io.rkllm.llama..")
                .should().dependOnClassesThat().resideInAPackage("com.fasterxml.jackson..")
                .check(classes);
    }

    @Test
    void servingCodeNeverUsesTheToolsNorTheHarness() {
        noClasses().that().resideOutsideOfPackages("io.rkllm.server", "io.rkllm.server.tools..")
                .should().dependOnClassesThat().resideInAPackage("io.rkllm.server.tools..")
                .check(classes);
        // the harness (src/harness/java) is compiled with the tests and into the tools jar, never into this one
        noClasses().should().resideInAPackage("io.rkllm.server.harness..").check(classes);
    }

    @Test
    void theBenchesFuzzSoakAndArchiveTrainingAreNotInTheServer() {
        // they are the tools module's (rkllm-server-tools.jar), which the server knows only as ToolCommands
        noClasses().should().resideInAnyPackage("io.rkllm.tools..", "io.rkllm.server.tools.bench..",
                        "io.rkllm.server.tools.reliability..", "io.rkllm.server.tools.archive..")
                .check(classes);
    }

    @Test
    void theSharedWordsDependOnNothingOfTheServer() {
        noClasses().that().resideInAnyPackage("io.rkllm.server.domain..", "io.rkllm.server.models..")
                .should().dependOnClassesThat().resideInAnyPackage("io.rkllm.server.engine..",
                        "io.rkllm.server.pipeline..", "io.rkllm.server.http..", "io.rkllm.server.api..",
                        "io.rkllm.server.app..", "io.rkllm.server.backend..", "io.rkllm.ffm..", "io.rkllm.llama")
                .check(classes);
    }

    @Test
    void theTextHelpersUseNothingOfTheProject() {
        noClasses().that().resideInAPackage("io.rkllm.server.text..")
                .should().dependOnClassesThat(resideInAPackage("io.rkllm..")
                        .and(resideOutsideOfPackage("io.rkllm.server.text..")))
                .check(classes);
    }

    @Test
    void theChatTemplatesKnowNothingOfServing() {
        // the pipeline (apply-template, the generation prompt's probe) and the llama.cpp backend both render with it
        noClasses().that().resideInAPackage("io.rkllm.server.template..")
                .should().dependOnClassesThat().resideInAnyPackage("io.rkllm.server.engine..",
                        "io.rkllm.server.pipeline..", "io.rkllm.server.http..", "io.rkllm.server.api..",
                        "io.rkllm.server.app..", "io.rkllm.server.backend..", "io.rkllm.server.models..",
                        "io.rkllm.ffm..", "io.rkllm.llama")
                .check(classes);
    }

    @Test
    void downloadsKnowNothingOfServing() {
        noClasses().that().resideInAPackage("io.rkllm.server.download..")
                .should().dependOnClassesThat().resideInAnyPackage("io.rkllm.server.engine..",
                        "io.rkllm.server.pipeline..", "io.rkllm.server.http..", "io.rkllm.server.api..",
                        "io.rkllm.server.app..", "io.rkllm.server.backend..", "io.rkllm.server.tools..",
                        "io.rkllm.ffm..", "io.rkllm.llama..", "io.javalin..", "org.eclipse.jetty..")
                .check(classes);
    }

    @Test
    void theBindingsAndTheRagModuleKnowNothingOfTheServer() {
        noClasses().that().resideInAnyPackage("io.rkllm.ffm..", "io.rkllm.llama..", "io.rkllm.rag..")
                .should().dependOnClassesThat().resideInAPackage("io.rkllm.server..")
                .check(classes);
    }
}
