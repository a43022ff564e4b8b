package io.rkllm.server.backend.rkllm;

import io.rkllm.server.engine.contract.DoctorLine;
import io.rkllm.server.models.ModelDescriptor;
import java.util.List;
import java.util.Optional;
import java.util.function.Predicate;

/**
 * Runtime 1.3.0 with thinking models: the release is reported to end thinking answers at {@code </think>}
 * (docs/runtime-abi.md). The server works around it for models it has a chat template for ({@link ThinkingControl});
 * 1.2.3 is the release known to work.
 */
final class ThinkingCheck {
    private ThinkingCheck() {
    }

    /**
     * @param version the runtime's release, when identified
     * @param templated whether the server frames a model's prompts with a chat template of its own
     * @param thinkingFlag {@code runtime.thinking_flag}
     */
    static Optional<DoctorLine> on130(Optional<String> version, List<ModelDescriptor> models,
                                      Predicate<ModelDescriptor> templated, String thinkingFlag) {
        List<String> thinking = models.stream().filter(m -> m.capabilities().thinking()).map(ModelDescriptor::id)
                .toList();
        if (version.filter("1.3.0"::equals).isEmpty() || thinking.isEmpty()) {
            return Optional.empty();
        }
        List<String> flagOnly = models.stream().filter(m -> m.capabilities().thinking())
                .filter(templated.negate()).map(ModelDescriptor::id).toList();
        String how = thinkingFlag.equals("always") ? "runtime.thinking_flag is always: every thinking answer may"
                + " come back empty" : flagOnly.isEmpty() ? "the server switches thinking through their chat"
                + " templates instead of the runtime's flag, which avoids it as far as is known"
                : "the server has no chat template for " + flagOnly + ", which can only think through the runtime's"
                        + " flag: their thinking answers may come back empty (reported as finish_reason length)";
        return Optional.of(DoctorLine.warn("runtime", "runtime 1.3.0 with thinking models " + thinking + ": 1.3.0 is"
                + " reported to end thinking answers at </think>; " + how, "runtime 1.2.3 is the known-good release"
                + " (airockchip/rknn-llm tag release-v1.2.3, ABI 1.2); re-convert models with the toolkit of the"
                + " runtime you use (docs/runtime-abi.md)"));
    }
}
