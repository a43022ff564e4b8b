package io.rkllm.server.backend.rkllm;

import io.rkllm.ffm.Abi;
import io.rkllm.ffm.LibraryIdentity;
import io.rkllm.ffm.LibraryLocator;
import io.rkllm.ffm.RkllmException;
import io.rkllm.ffm.RkllmRuntime;
import io.rkllm.ffm.SimulatedRuntime;
import io.rkllm.server.config.ServerConfig;
import io.rkllm.server.engine.contract.DoctorLine;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;

/**
 * {@code doctor}'s line on the RKLLM runtime library: found where {@code serve} would find it, opened, its release
 * and ABI identified; or what is wrong, with the fix. Its file and release feed the CPU and the 1.3.0 checks.
 *
 * @param line the library's line
 * @param file the library, when one was identified (not the simulated one: its code is no release's)
 * @param version its release, when identified
 */
record RuntimeCheck(DoctorLine line, Optional<Path> file, Optional<String> version) {
    private static final String INSTALL = "install librkllmrt.so from airockchip/rknn-llm (rkllm-runtime/Linux/"
            + "librkllm_api/aarch64/librkllmrt.so, release 1.2.1-1.2.3 or 1.3.0): `sudo install -m 0644 librkllmrt.so"
            + " /usr/lib/`";

    private RuntimeCheck(DoctorLine line) {
        this(line, Optional.empty(), Optional.empty());
    }

    /** @param simulation with {@code --simulate}, the directory the simulated runtime is copied into */
    static RuntimeCheck of(ServerConfig.Runtime runtime, Optional<Path> simulation, Map<String, String> environment) {
        Optional<Abi> forced;
        try {
            forced = Abi.parseChoice(runtime.abi());
        } catch (IllegalArgumentException e) {
            return new RuntimeCheck(DoctorLine.fail("library", e.getMessage(), "set runtime.abi to auto, 1.2 or 1.3"));
        }
        Path library;
        if (simulation.isPresent()) {
            Optional<Path> bundled;
            try {
                bundled = SimulatedRuntime.extract(forced.orElse(Abi.V1_3), simulation.get().resolve("lib"));
            } catch (IOException e) {
                return new RuntimeCheck(DoctorLine.fail("library", "cannot copy the simulated runtime out of the"
                        + " jar: " + e.getMessage(), "make the temporary directory writable (java.io.tmpdir)"));
            }
            if (bundled.isEmpty()) {
                return new RuntimeCheck(DoctorLine.fail("library", "this jar has no simulated runtime built for "
                        + System.getProperty("os.arch"), "build the jar on this kind of machine (./mvnw -B verify),"
                        + " or run without --simulate"));
            }
            library = bundled.get();
        } else {
            Optional<Path> configured = runtime.library().isBlank() ? Optional.empty()
                    : Optional.of(Path.of(runtime.library()));
            LibraryLocator locator = new LibraryLocator(environment);
            Optional<Path> found = locator.locate(configured);
            if (found.isEmpty()) {
                return new RuntimeCheck(configured.isPresent()
                        ? DoctorLine.fail("library", "runtime.library " + configured.get() + " does not exist",
                                INSTALL + ", or correct runtime.library (--library PATH)")
                        : DoctorLine.fail("library", LibraryLocator.LIBRARY_NAME + " not found in "
                                + locator.searchPath(), INSTALL + " (or set --library PATH; --simulate needs none)"));
            }
            library = found.get();
        }
        return opened(library, forced, simulation.isPresent());
    }

    private static RuntimeCheck opened(Path library, Optional<Abi> forced, boolean simulated) {
        RkllmRuntime opened;
        try {
            opened = RkllmRuntime.open(library, forced);
        } catch (RkllmException e) {
            return new RuntimeCheck(DoctorLine.fail("library", e.getMessage(), forced.isEmpty()
                    ? "force the ABI: --abi 1.2 for runtime 1.2.1-1.2.3, --abi 1.3 for 1.3.0 (or runtime.abi in the"
                            + " config file, RKLLM_RUNTIME_ABI); docs/runtime-abi.md"
                    : "install runtime 1.2.1-1.2.3 or 1.3.0 from airockchip/rknn-llm, matching --abi"));
        } catch (RuntimeException e) {
            return new RuntimeCheck(DoctorLine.fail("library", "cannot load " + library + ": " + e.getMessage(),
                    "the file must be the aarch64 librkllmrt.so from airockchip/rknn-llm"));
        }
        LibraryIdentity identity = opened.identity();
        // the simulated runtime's file hash is no official release's: the evidence would call it unknown
        String what = simulated
                ? "the simulated runtime " + identity.version().orElse("") + " bundled in the jar, ABI "
                        + opened.abi().label() + (forced.isPresent() ? " (forced)" : "") + ", " + library
                : library + ": runtime " + identity.version().orElse("unknown") + ", ABI " + opened.abi().label()
                        + (forced.isPresent() ? " (forced)" : "") + " - " + identity.evidence();
        Optional<Path> file = simulated ? Optional.empty() : Optional.of(library);
        if (forced.isPresent() && identity.abi().isPresent() && identity.abi().get() != forced.get()) {
            return new RuntimeCheck(DoctorLine.warn("library", what, "the file looks like ABI "
                    + identity.abi().get().label() + ": remove the forced runtime.abi (--abi) unless you are sure"),
                    file, identity.version());
        }
        return new RuntimeCheck(DoctorLine.ok("library", what), file, identity.version());
    }
}
