package io.rkllm.server;

import io.rkllm.server.config.ServerConfig;
import io.rkllm.server.models.EmbeddingSettings;
import io.rkllm.server.models.ModelDescriptor;
import io.rkllm.server.pipeline.ModelDialects;
import io.rkllm.server.pipeline.PromptFormat;
import io.rkllm.server.pipeline.SlotCount;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;

/** What {@code rkllm-server models} prints: each model found, how the server would serve it. */
record ModelsListing(PrintStream out) {

    /** Each model of {@code models} with how it is served, for a machine with {@code memory} bytes. */
    void print(ServerConfig config, Path modelsDir, List<ModelDescriptor> models, long memory) {
        out.println("models in " + modelsDir + ":");
        ModelDialects dialects = new ModelDialects();
        for (ModelDescriptor m : models) {
            out.printf("  %-28s context %-6d (%s)  family %-10s thinking %-5s tools %-5s%n    file %s%n",
                    m.id(), m.contextLength(), m.source(), m.family(), m.capabilities().thinking(),
                    m.capabilities().tools(), m.file());
            if (!m.aliases().isEmpty()) {
                out.println("    aliases " + String.join(", ", m.aliases()));
            }
            if (m.embedding().isPresent()) {
                out.println("    serving: " + embeddingSummary(m));
                continue;
            }
            int slots = SlotCount.resolve(config.cache().slots(), m, memory);
            out.println("    serving: " + slots + (slots == 1 ? " KV cache slot" : " KV cache slots")
                    + " (cache.slots " + config.cache().slots() + "), "
                    + (PromptFormat.of(m).isPresent()
                            ? "system prompts through the " + m.family() + " chat template"
                            : "the runtime's own chat template (system prompts sent as text)")
                    + (m.capabilities().thinking() ? ", thinking " + (config.generation().thinkingDefault()
                            ? "on unless a request turns it off" : "off unless a request turns it on") : "")
                    + (m.thinkingStartsOpen() ? ", the template opens <think>" : ""));
            out.println("    answers read as " + dialects.of(m).name() + " (docs/dialects.md); its own chat template: "
                    + m.template().origin());
        }
        if (models.isEmpty()) {
            out.println("  (none)");
        }
    }

    /** How an embedding model's vectors are made, in one line. */
    private static String embeddingSummary(ModelDescriptor m) {
        EmbeddingSettings e = m.embedding().orElseThrow();
        String framing = e.framing() == EmbeddingSettings.Framing.RAW
                ? "the text" + (e.endOfText().isEmpty() ? "" : " + " + e.endOfText()) + " without a chat template"
                : "the text as a user turn in the chat template";
        return "embeddings of " + framing + ", " + e.pooling().label() + "-token pooling"
                + (e.pooling() == EmbeddingSettings.Pooling.MEAN ? " (mean of every token)" : "")
                + (e.normalize() ? ", L2-normalised" : "") + (e.matryoshka() ? ", dimensions may be shortened" : "")
                + ", inputs up to " + e.inputLimit(m.contextLength()) + " tokens"
                + (e.queryPrefix().isEmpty() ? "" : ", queries prefixed");
    }

    /** One line a model, as the server's start prints them. */
    void printBrief(Path modelsDir, List<ModelDescriptor> models) {
        out.println("models in " + modelsDir + ":");
        for (ModelDescriptor m : models) {
            out.println("  " + m.id() + "  context " + m.contextLength() + " (" + m.source() + ")"
                    + (m.capabilities().thinking() ? ", thinking" : "") + (m.capabilities().tools() ? ", tools" : "")
                    + (m.seesImages() ? ", vision" : "") + (m.isEmbedding() ? m.ranks() ? ", reranker" : ", embedding"
                    : "") + m.facts().header().map(h -> ", " + m.facts().format().toUpperCase(Locale.ROOT) + " "
                    + h.architecture() + " " + h.parameterSize() + " " + h.quantisation()).orElse("") + "  "
                    + m.file());
        }
    }
}
