package io.rkllm.llama;

import java.util.List;

/**
 * A loaded libllama for {@code doctor} and the start banner: which file and why, which generation, its
 * {@code llama_print_system_info} line and the ggml devices (backends) it found.
 */
public record LibraryInfo(LlamaLibrary library, LibraryIdentity identity, String systemInfo, List<String> devices) {
}
