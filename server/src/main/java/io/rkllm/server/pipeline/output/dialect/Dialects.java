package io.rkllm.server.pipeline.output.dialect;

import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * Every dialect the server reads, and the choice of one for a model: the one {@code model.yaml} names, else the one
 * whose markers its chat template writes (tried in this order: the more specific first, as llama.cpp's checks), else
 * Hermes'.
 */
public final class Dialects {
    /** What a model whose template says nothing is read as. */
    public static final Dialect HERMES = new Hermes();

    private static final List<Dialect> ALL = List.of(
            new GptOss(), new Mistral(), new MistralNemo(), new KimiK2(), new Lfm2(), new DeepSeekV32(),
            new Gemma4(), new SeedOss(), new Qwen3Coder(), new Glm(), new MiniMaxM2(), new DeepSeek(),
            new CommandR7B(), new Granite(), new NemotronV2(), new Llama3(), HERMES);

    private Dialects() {
    }

    /** Every dialect, in the order templates are tried. */
    public static List<Dialect> all() {
        return ALL;
    }

    /** The dialect of that name (case-insensitive). */
    public static Optional<Dialect> named(String name) {
        String key = name.strip().toLowerCase(Locale.ROOT);
        return ALL.stream().filter(d -> d.name().equals(key)).findFirst();
    }

    /** The dialect a chat template's source shows, if it shows one. */
    public static Optional<Dialect> ofTemplate(String template) {
        return ALL.stream().filter(d -> d.writtenBy(template)).findFirst();
    }

    /** The names, for messages. */
    public static List<String> names() {
        return ALL.stream().map(Dialect::name).toList();
    }
}
