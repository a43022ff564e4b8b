package io.rkllm.tools.architecture;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The tools module's rules, beside the server's (the server module's LayerRulesTest): the tools start a server
 * through its app wiring and then talk to it as its clients do, over HTTP; each tool is its own folder. Only this
 * module's classes are imported, so that these rules cost a second rather than the server's whole import.
 */
class ToolsRulesTest {
    private static JavaClasses classes;

    @BeforeAll
    static void importClasses() {
        classes = new ClassFileImporter().withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
                .importPackages("io.rkllm.tools");
    }

    @Test
    void theToolsReachNoServingLayer() {
        // what serves a request (routes, wire parsing, keys, the engine's registry and workers, metrics), and the
        // launcher and its own commands, are the server's business: a tool sees their effects over HTTP only
        noClasses().that().resideInAPackage("io.rkllm.tools..")
                .should().dependOnClassesThat().resideInAnyPackage("io.rkllm.server", "io.rkllm.server.http..",
                        "io.rkllm.server.api..", "io.rkllm.server.security..", "io.rkllm.server.engine",
                        "io.rkllm.server.metrics..", "io.rkllm.server.download..",
                        "io.rkllm.server.tools.doctor..", "io.rkllm.server.tools.launch..",
                        "io.rkllm.server.tools.pull..")
                .check(classes);
    }

    @Test
    void eachToolIsItsOwnFolder() {
        slices().matching("io.rkllm.tools.(*)..").should().notDependOnEachOther().check(classes);
    }
}
