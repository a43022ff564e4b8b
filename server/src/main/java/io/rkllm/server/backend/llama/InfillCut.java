package io.rkllm.server.backend.llama;

import io.rkllm.llama.LlamaModel;
import io.rkllm.server.engine.contract.ChatPrompt;
import java.nio.charset.StandardCharsets;
import java.util.Optional;

/**
 * A fill-in-the-middle prompt cut by its tokens to the room the sequence has, as llama-server's {@code /infill} cuts
 * it: the suffix keeps at most a quarter of the room from its start, the prefix the rest from its end, so the text
 * nearest the gap stays. The pipeline cut it already by its estimate of the tokens; this is exact (to a
 * character's edge).
 */
final class InfillCut {
    /** Tokens kept beside the two texts: a BOS token, the markers, a repository's header. */
    private static final int MARKERS = 24;

    private InfillCut() {
    }

    static ChatPrompt fit(ChatPrompt prompt, LlamaModel model) {
        Optional<ChatPrompt.Raw> raw = prompt.setup().raw();
        if (raw.isEmpty() || !raw.get().cutToFit() || raw.get().suffix().isEmpty()) {
            return prompt;
        }
        ChatPrompt.Settings settings = prompt.settings();
        int room = settings.contextLength() - Math.max(settings.reserveTokens(), 16) - MARKERS;
        int[] prefix = model.tokenize(raw.get().prefix(), false, false);
        int[] suffix = model.tokenize(raw.get().suffix().get(), false, false);
        if (prefix.length + suffix.length <= room) {
            return prompt;
        }
        int suffixKeep = Math.min(suffix.length, Math.max(0, room / 4));
        int prefixKeep = Math.min(prefix.length, Math.max(0, room - suffixKeep));
        // the texts themselves are cut where their tokens are (not written again from the tokens: a tokenizer's
        // cleaning of spaces would change the code), a side with nothing to leave out kept as it is
        String keptPrefix = prefixKeep == prefix.length ? raw.get().prefix()
                : tail(raw.get().prefix(), bytes(model, prefix, 0, prefix.length - prefixKeep));
        String keptSuffix = suffixKeep == suffix.length ? raw.get().suffix().get()
                : head(raw.get().suffix().get(), bytes(model, suffix, 0, suffixKeep));
        ChatPrompt.Setup setup = ChatPrompt.Setup.forRaw(new ChatPrompt.Raw(keptPrefix, Optional.of(keptSuffix),
                true));
        return new ChatPrompt(prompt.model(), prompt.identity(), setup, prompt.turns(), prompt.task(), settings);
    }

    /** How many bytes tokens {@code from} to {@code to} (exclusive) spell. */
    private static int bytes(LlamaModel model, int[] tokens, int from, int to) {
        int n = 0;
        for (int i = from; i < to; i++) {
            n += model.tokenToPiece(tokens[i], false).length;
        }
        return n;
    }

    /** The text after its first {@code dropped} bytes, from a character's start. */
    private static String tail(String text, int dropped) {
        byte[] utf8 = text.getBytes(StandardCharsets.UTF_8);
        int from = Math.min(dropped, utf8.length);
        while (from < utf8.length && (utf8[from] & 0xc0) == 0x80) {
            from++;
        }
        return new String(utf8, from, utf8.length - from, StandardCharsets.UTF_8);
    }

    /** The text's first {@code kept} bytes, to a character's end. */
    private static String head(String text, int kept) {
        byte[] utf8 = text.getBytes(StandardCharsets.UTF_8);
        int to = Math.min(kept, utf8.length);
        while (to > 0 && to < utf8.length && (utf8[to] & 0xc0) == 0x80) {
            to--;
        }
        return new String(utf8, 0, to, StandardCharsets.UTF_8);
    }
}
