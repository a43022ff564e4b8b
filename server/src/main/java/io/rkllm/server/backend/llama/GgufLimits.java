package io.rkllm.server.backend.llama;

import io.rkllm.server.models.ContextChoice;
import io.rkllm.server.models.ModelDescriptor;
import io.rkllm.server.models.ModelHeader;
import java.util.Locale;

/**
 * How GGUF models are served, as far as discovery needs to know to describe them: how many conversations one
 * loaded copy runs at once ({@code engines.llama.parallel}), the context length asked for
 * ({@code engines.llama.context}, 0 = the model's training context capped by memory; never more than an embedding
 * model's or a reranker's training context) and the machine's memory.
 *
 * <p>The default context is the model's own (its training context), capped so that the weights and the KV caches fit
 * in {@link KvMemory#BUDGET_SHARE} of the machine's memory: llama.cpp reserves them whole when a context is created.
 * With a cache for each conversation ({@link KvLayout}) they are {@code parallel + 1} caches of the context; shared,
 * one.
 *
 * @param kvCache how the conversations hold their KV cells ({@code engines.llama.kv_cache})
 */
public record GgufLimits(int parallel, int context, long memoryBytes, KvLayout.Mode kvCache) {

    public GgufLimits {
        if (parallel < 1 || context < 0 || memoryBytes < 0) {
            throw new IllegalArgumentException("bad GGUF limits " + parallel + "/" + context + "/" + memoryBytes);
        }
        java.util.Objects.requireNonNull(kvCache, "kvCache");
    }

    /** One cache shared by the conversations. */
    public GgufLimits(int parallel, int context, long memoryBytes) {
        this(parallel, context, memoryBytes, KvLayout.Mode.SHARED);
    }

    /** One sequence, the model's context, the memory unknown (no cap). */
    public static final GgufLimits DEFAULT = new GgufLimits(1, 0, 0);

    /** How the conversations of the models these limits describe hold their KV cells. */
    KvLayout layout() {
        return new KvLayout(kvCache, memoryBytes, context);
    }

    /** The context a GGUF model of {@code facts} and {@code fileBytes} is served with, and where it came from. */
    ContextChoice contextFor(GgufFacts gguf, long fileBytes) {
        ModelHeader header = gguf.modelHeader();
        if (context > 0) {
            if (header.pooling().isPresent() && header.trainingContext() > 0 && context > header.trainingContext()) {
                // an encoder's learned positions end at its training length (the binding refuses a longer
                // context), and an embedding model or reranker gains nothing from a longer one
                return new ContextChoice(header.trainingContext(), "gguf " + header.trainingContext()
                        + " (engines.llama.context " + context + " is longer than an embedding model was trained for)");
            }
            return new ContextChoice(context, "engines.llama.context");
        }
        int trained = KvMemory.trained(header);
        if (memoryBytes <= 0 || gguf.kvBytesPerToken() <= 0) {
            return new ContextChoice(trained, header.trainingContext() > 0 ? "gguf" : ModelDescriptor.SOURCE_DEFAULT);
        }
        int capped = KvMemory.sharedContext(trained, gguf.kvBytesPerToken(), fileBytes, memoryBytes);
        int caches = KvMemory.caches(parallel);
        if (kvCache == KvLayout.Mode.PER_CONVERSATION && header.pooling().isEmpty()) {
            // a cache each of what each may hold in its share of the room
            long each = layout().room(fileBytes) / (gguf.kvBytesPerToken() * caches) / 256 * 256;
            int chosen = (int) Math.min(trained, Math.max(Math.min(trained, KvMemory.MIN_CONTEXT), each));
            return chosen < trained ? new ContextChoice(chosen, String.format(Locale.ROOT, "gguf %d, capped by"
                    + " memory for a KV cache each of %d conversations and the tasks", trained, caches))
                    : new ContextChoice(trained, "gguf");
        }
        if (kvCache == KvLayout.Mode.AUTO && header.pooling().isEmpty()) {
            // the cells one shared cache would have, split into a cache each when each still gets enough of them
            int each = capped / caches / 256 * 256;
            if (each >= Math.min(trained, KvLayout.AUTO_MIN_CONTEXT)) {
                return new ContextChoice(each, String.format(Locale.ROOT, "gguf %d, the cells of one cache of %d"
                        + " split into a KV cache each of %d conversations and the tasks", trained, capped, caches));
            }
        }
        return capped < trained
                ? new ContextChoice(capped, String.format(Locale.ROOT, "gguf %d, capped by memory", trained))
                : new ContextChoice(trained, "gguf");
    }
}
