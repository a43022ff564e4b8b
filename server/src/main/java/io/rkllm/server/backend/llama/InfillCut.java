package io.rkllm.server.backend.llama;

import io.rkllm.llama.LlamaModel;
import io.rkllm.server.engine.contract.ChatPrompt;
import java.util.Arrays;
import java.util.Optional;

/**
 * A fill-in-the-middle prompt cut by its tokens to the room the sequence has, as llama-server's {@code /infill} cuts
 * it: the suffix keeps at most a quarter of the room from its start, the prefix the rest from its end, so the text
 * nearest the gap stays. The pipeline cut it already by its estimate of the tokens; this is exact.
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
        // a cut between the bytes of one character leaves half of it, which is no text: left out too
        String keptPrefix = strip(model.detokenize(Arrays.copyOfRange(prefix, prefix.length - prefixKeep,
                prefix.length), false));
        String keptSuffix = strip(model.detokenize(Arrays.copyOf(suffix, suffixKeep), false));
        ChatPrompt.Setup setup = ChatPrompt.Setup.forRaw(new ChatPrompt.Raw(keptPrefix, Optional.of(keptSuffix),
                true));
        return new ChatPrompt(prompt.model(), prompt.identity(), setup, prompt.turns(), prompt.task(), settings);
    }

    /** Without the replacement characters a cut character's bytes became at either end. */
    private static String strip(String text) {
        int from = 0;
        int to = text.length();
        while (from < to && text.charAt(from) == '\uFFFD') {
            from++;
        }
        while (to > from && text.charAt(to - 1) == '\uFFFD') {
            to--;
        }
        return text.substring(from, to);
    }
}
