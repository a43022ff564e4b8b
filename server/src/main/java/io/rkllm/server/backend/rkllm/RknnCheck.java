package io.rkllm.server.backend.rkllm;

import io.rkllm.ffm.LibraryLocator;
import io.rkllm.ffm.rknn.RknnFunction;
import io.rkllm.ffm.rknn.RknnRuntime;
import io.rkllm.server.engine.contract.DoctorLine;
import java.nio.file.Path;
import java.util.List;

/** {@code doctor}'s line on the RKNN runtime, which runs the image encoders of vision models; only they need it. */
final class RknnCheck {
    private static final String INSTALL = "install librknnrt.so from airockchip/rknn-llm (rkllm-runtime/Linux/"
            + "librkllm_api/aarch64/librknnrt.so): `sudo install -m 0644 librknnrt.so /usr/lib/`, or set"
            + " runtime.rknn_library";

    private RknnCheck() {
    }

    /** @param simulated the library is the jar's simulated one */
    static DoctorLine of(RknnLibrary rknn, boolean simulated, List<String> visionModels) {
        if (rknn.path().isEmpty()) {
            return visionModels.isEmpty()
                    ? DoctorLine.info("rknn", LibraryLocator.RKNN_LIBRARY_NAME + " not found: only vision models need it")
                    : DoctorLine.warn("rknn", LibraryLocator.RKNN_LIBRARY_NAME + " not found: the vision models "
                            + visionModels + " cannot load their image encoders", INSTALL);
        }
        Path path = rknn.path().get();
        try {
            RknnRuntime opened = rknn.get();
            String cores = opened.supports(RknnFunction.SET_CORE_MASK) ? "" : " (no rknn_set_core_mask: encoders run"
                    + " on the default core; set vision.encoder_cores: auto)";
            return DoctorLine.ok("rknn", (simulated ? "simulated RKNN runtime (bundled) " : "RKNN runtime ") + path
                    + " for image encoders" + cores + (visionModels.isEmpty() ? "" : "; vision models: "
                    + String.join(", ", visionModels)));
        } catch (RuntimeException e) {
            return visionModels.isEmpty() ? DoctorLine.warn("rknn", "cannot load " + path + ": " + e.getMessage(),
                    INSTALL) : DoctorLine.fail("rknn", "cannot load " + path + ": " + e.getMessage() + "; the vision"
                    + " models " + visionModels + " cannot load", INSTALL);
        }
    }
}
