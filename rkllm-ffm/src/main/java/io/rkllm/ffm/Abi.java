package io.rkllm.ffm;

import java.util.Locale;
import java.util.Optional;

/**
 * The two C ABIs of librkllmrt.so this binding supports. Their struct layouts differ, and no
 * exported symbol tells them apart, so the ABI is configured or identified from the library file.
 */
public enum Abi {
    /** Runtime releases 1.2.1, 1.2.2 and 1.2.3: sampling fixed at init, no per-run token limit. */
    V1_2("1.2"),
    /** Runtime release 1.3.0: per-run sampling parameters and max_new_tokens. */
    V1_3("1.3");

    private final String label;

    Abi(String label) {
        this.label = label;
    }

    public String label() {
        return label;
    }

    /** Whether {@code RKLLMInferParam} carries sampling parameters and a token limit per run. */
    public boolean perRunSampling() {
        return this == V1_3;
    }

    /**
     * Whether a result callback may return 2 to let the runtime release its output buffer at once
     * (documented from 1.3.0 for the hidden-layer and logits modes; 1.2 documents only 0 and 1).
     */
    public boolean releasesOutputBuffer() {
        return this == V1_3;
    }

    /** Parses "1.2" or "1.3"; "auto" or blank gives empty (identify from the library). */
    public static Optional<Abi> parseChoice(String text) {
        String value = text == null ? "" : text.trim().toLowerCase(Locale.ROOT);
        return switch (value) {
            case "", "auto" -> Optional.empty();
            case "1.2", "1.2.1", "1.2.2", "1.2.3" -> Optional.of(V1_2);
            case "1.3", "1.3.0" -> Optional.of(V1_3);
            default -> throw new IllegalArgumentException(
                    "unknown RKLLM ABI '" + text + "': use auto, 1.2 (runtime 1.2.1-1.2.3) or 1.3 (runtime 1.3.0)");
        };
    }

    /** The ABI of a runtime release version such as "1.2.3" or "1.2.1b1"; empty when unsupported. */
    public static Optional<Abi> ofRuntimeVersion(String version) {
        if (version.matches("1\\.2\\.[1-9]\\d*(b\\d+)?")) {
            return Optional.of(V1_2);
        }
        if (version.matches("1\\.3\\.0(b\\d+)?")) {
            return Optional.of(V1_3);
        }
        return Optional.empty();
    }

    @Override
    public String toString() {
        return label;
    }
}
