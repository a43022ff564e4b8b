package io.rkllm.llama;

import java.util.Optional;
import java.util.OptionalInt;

/**
 * What a libllama file was found to be.
 *
 * @param buildNumber llama.cpp's build number, when the library exports it ({@code LLAMA_BUILD_NUMBER}, present
 *                    where llama.cpp's common code is linked in, as in de.kherud:llama's libjllama.so)
 * @param evidence    how the generation was chosen, for logs and {@code doctor}
 */
public record LibraryIdentity(LayoutGeneration generation, KvApi kvApi, OptionalInt buildNumber,
                              Optional<String> commit, String evidence) {
}
