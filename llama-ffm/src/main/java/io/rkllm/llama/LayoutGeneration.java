package io.rkllm.llama;

/**
 * The generations of llama.h's structs the binding knows, each checked field by field against the C compiler's
 * offsets for that header (src/layout, LayoutTableTest). llama.cpp changes these structs often and without
 * notice in the library file; a library is bound with the layouts of one generation only after its own default
 * parameters were seen at that generation's offsets ({@code LibraryIdentifier}).
 */
public enum LayoutGeneration {
    /** llama.h of builds b4753 to b4980 (identical structs): de.kherud:llama 4.2.0's build 4916. */
    B4916("b4753-b4980"),
    /** llama.h of release v0.5.0 (2026): node-llama-cpp 3.22's prebuilt libllama. */
    V0_5_0("v0.5.0"),
    /** llama.h of release 0.7.0: Debian's libllama0 1:0.7.0 (forky/sid). */
    V0_7_0("0.7.0");

    private final String builds;

    LayoutGeneration(String builds) {
        this.builds = builds;
    }

    /** The llama.cpp builds whose llama.h has exactly these structs. */
    public String builds() {
        return builds;
    }

    /** {@code llama_sampler_init_penalties} takes the vocabulary size first from v0.5.0 on. */
    boolean penaltiesTakeVocabSize() {
        return this != B4916;
    }
}
