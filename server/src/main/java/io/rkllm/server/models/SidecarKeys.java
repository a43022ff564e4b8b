package io.rkllm.server.models;

import java.util.ArrayList;
import java.util.List;

/** What a model's {@code model.yaml} may say: its keys, section by section, and the limits of its values. */
final class SidecarKeys {
    private SidecarKeys() {
    }

    /** Largest context length a sidecar may set. */
    static final int MAX_CONTEXT_LENGTH = 1 << 20;
    /** Largest memory need a sidecar may state, in MB (1 TB). */
    static final int MAX_MEMORY_MB = 1 << 20;

    static final List<String> SAMPLING_KEYS = List.of("temperature", "top_p", "top_k", "repeat_penalty",
            "frequency_penalty", "presence_penalty", "max_tokens");
    static final List<String> CAPABILITY_KEYS = List.of("thinking", "tools");
    static final List<String> TEMPLATE_KEYS = List.of("system_prompt", "prompt_prefix", "prompt_postfix");
    static final List<String> EMBEDDING_KEYS = List.of("pooling", "normalize", "framing", "end_of_text",
            "query_prefix", "document_prefix", "dimensions", "matryoshka", "max_input_tokens");
    /** Widest vector a sidecar may announce (the widest embedding models have 4096 to 8192 dimensions). */
    static final int MAX_DIMENSIONS = 65_536;
    static final List<String> VISION_KEYS = List.of("encoder", "enabled", "image_start", "image_end",
            "image_content", "image_size", "image_tokens", "max_images", "base_domain_id");
    static final List<String> TOP_KEYS;

    static {
        List<String> keys = new ArrayList<>(List.of("name", "family", "context_length", "capabilities",
                "thinking_starts_open", "default_system_prompt", "chat_template", "aliases", "thinking_sampling",
                "memory_mb", "vision", "kind", "embedding", "dialect", "stop"));
        keys.addAll(SAMPLING_KEYS);
        TOP_KEYS = List.copyOf(keys);
    }
}
