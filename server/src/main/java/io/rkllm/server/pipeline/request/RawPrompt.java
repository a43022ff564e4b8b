package io.rkllm.server.pipeline.request;

import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * A prompt the model reads as the client wrote it, without the chat template or a system prompt (OpenAI's and
 * llama-server's {@code /v1/completions}, Ollama's {@code raw: true}): the text a code editor's autocomplete or an
 * evaluation harness builds itself. With a suffix, the model fills in the middle between the two (its
 * fill-in-the-middle tokens around them, as llama-server's {@code /infill} and Ollama's {@code suffix} place them).
 *
 * @param prefix the text the answer continues (the whole prompt without a suffix)
 * @param suffix the text after the gap, for fill in the middle
 * @param cutToFit the prefix's start and the suffix's end may be left out to fit the context, as llama-server's
 *                 {@code /infill} cuts them (an editor sends the whole file around the cursor)
 * @param extra other files' chunks the model reads first, with a suffix only; the first of them may be left out to
 *              fit the context
 */
public record RawPrompt(String prefix, Optional<String> suffix, boolean cutToFit, List<FileChunk> extra) {
    public RawPrompt {
        Objects.requireNonNull(prefix, "prefix");
        Objects.requireNonNull(suffix, "suffix");
        extra = List.copyOf(extra);
    }

    /** Without other files' chunks. */
    public RawPrompt(String prefix, Optional<String> suffix, boolean cutToFit) {
        this(prefix, suffix, cutToFit, List.of());
    }

    /** Read whole, or refused when it does not fit. */
    public RawPrompt(String prefix, Optional<String> suffix) {
        this(prefix, suffix, false);
    }

    /** The other files' chunks as one text, for estimates: each file's name and text. */
    public String extraText() {
        return textOf(extra);
    }

    /** Chunks as one text, for estimates: each file's name and text. */
    public static String textOf(List<FileChunk> chunks) {
        StringBuilder text = new StringBuilder();
        chunks.forEach(c -> text.append(c.filename()).append('\n').append(c.text()));
        return text.toString();
    }
}
