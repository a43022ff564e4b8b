package io.rkllm.tools.bench;

import io.rkllm.llama.gguf.TensorType;
import io.rkllm.llama.gguf.TinyLlama;
import io.rkllm.server.config.ConfigException;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Locale;
import java.util.Map;

/**
 * The shape of the random-weight llama-architecture model {@code bench llama} writes when it is given no GGUF file:
 * big enough that computing dominates each step as with a real model. The default is SmolLM2-135M's shape (30
 * layers of width 576, 9 heads, 3 KV heads, feed-forward 1,536) with the test models' 459-token vocabulary instead
 * of 49,152 tokens: 106 million parameters, 213 MB in F16. {@link TinyLlama} writes it (F16 or F32: the writer has no
 * quantised types).
 */
record BenchModel(int layers, int width, int heads, int kvHeads, int feedForward, int contextLength,
                  TensorType type) {
    static final long SEED = 1234;

    BenchModel {
        if (layers < 1 || width < 1 || heads < 1 || kvHeads < 1 || feedForward < 1 || contextLength < 64) {
            throw new ConfigException("bench llama: the model's dimensions must be positive (and the context at"
                    + " least 64)");
        }
        if (width % heads != 0 || heads % kvHeads != 0) {
            throw new ConfigException("bench llama: --width must be a multiple of --heads, and --heads of"
                    + " --kv-heads (" + width + "/" + heads + "/" + kvHeads + ")");
        }
        if (type != TensorType.F16 && type != TensorType.F32) {
            throw new ConfigException("bench llama: --type f16 or f32 (the writer has no quantised types)");
        }
        if ((long) width * feedForward > Integer.MAX_VALUE || (long) width * width > Integer.MAX_VALUE) {
            throw new ConfigException("bench llama: a tensor of " + width + " x " + feedForward + " is too big");
        }
    }

    static BenchModel smolLm2Shape() {
        return new BenchModel(30, 576, 9, 3, 1536, 2048, TensorType.F16);
    }

    /** The default shape with the options given ({@code --layers --width --heads --kv-heads --ff --type}) removed. */
    static BenchModel from(Map<String, String> options) {
        BenchModel d = smolLm2Shape();
        String type = options.remove("type");
        TensorType t = type == null ? d.type() : switch (type.strip().toLowerCase(Locale.ROOT)) {
            case "f16" -> TensorType.F16;
            case "f32" -> TensorType.F32;
            default -> throw new ConfigException("--type: f16 or f32, got '" + type + "'");
        };
        return new BenchModel(number(options, "layers", d.layers()), number(options, "width", d.width()),
                number(options, "heads", d.heads()), number(options, "kv-heads", d.kvHeads()),
                number(options, "ff", d.feedForward()), d.contextLength(), t);
    }

    static int number(Map<String, String> options, String name, int otherwise) {
        String value = options.remove(name);
        if (value == null) {
            return otherwise;
        }
        try {
            int n = Integer.parseInt(value.strip());
            if (n >= 1) {
                return n;
            }
        } catch (NumberFormatException e) {
            // reported below
        }
        throw new ConfigException("--" + name + ": expected a whole number of at least 1, got '" + value + "'");
    }

    TinyLlama.Options options() {
        return new TinyLlama.Options(SEED, width, layers, heads, kvHeads, feedForward, contextLength, 200, type,
                false, layers);
    }

    /** Writes the model (random weights from a fixed seed: the same file every time). */
    void write(Path file) throws IOException {
        TinyLlama.write(file, options());
    }

    /** How it is described in the output. */
    String describe() {
        return String.format(Locale.ROOT, "random-weight llama, %d layers, width %d, %d heads (%d KV), feed-forward"
                + " %d, %s", layers, width, heads, kvHeads, feedForward, type);
    }
}
