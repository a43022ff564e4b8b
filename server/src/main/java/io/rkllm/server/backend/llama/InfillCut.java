package io.rkllm.server.backend.llama;

import io.rkllm.llama.LlamaModel;
import io.rkllm.server.engine.contract.ChatPrompt;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Optional;

/**
 * A fill-in-the-middle prompt cut by its tokens to the room the sequence has, as llama-server's {@code /infill} cuts
 * it: the file keeps at most half the room, {@link ChatPrompt.Raw#FILE_ROOM} tokens at most, the text nearest the
 * gap (the suffix a quarter of it at most, from its start; the prefix the rest, from its end); other files' chunks
 * the rest of the room, whole, the first ones left out first. The room is the context less
 * {@link ChatPrompt.Raw#CUT_RESERVE}, whatever the request asks, so that an editor's warm-up and its completions keep
 * the same chunks. The pipeline cut it already by its estimate of the tokens; this is exact (to a character's edge).
 */
final class InfillCut {
    /** Tokens kept beside the two texts: a BOS token, the markers, a repository's header. */
    private static final int MARKERS = 24;
    /** Tokens kept beside each other file's chunk: its separator (a token, or llama-server's snippet line). */
    private static final int CHUNK_MARKERS = 24;

    private InfillCut() {
    }

    static ChatPrompt fit(ChatPrompt prompt, LlamaModel model) {
        Optional<ChatPrompt.Raw> asked = prompt.setup().raw();
        if (asked.isEmpty() || !asked.get().cutToFit() || asked.get().suffix().isEmpty()) {
            return prompt;
        }
        ChatPrompt.Raw raw = asked.get();
        ChatPrompt.Settings settings = prompt.settings();
        int room = settings.contextLength() - ChatPrompt.Raw.CUT_RESERVE - MARKERS;
        int fileRoom = ChatPrompt.Raw.fileRoom(room);
        int[] prefix = model.tokenize(raw.prefix(), false, false);
        int[] suffix = model.tokenize(raw.suffix().get(), false, false);
        String keptPrefix = raw.prefix();
        String keptSuffix = raw.suffix().get();
        boolean cut = prefix.length + suffix.length > fileRoom;
        if (cut) {
            int suffixKeep = Math.min(suffix.length, Math.max(0, fileRoom / 4));
            int prefixKeep = Math.min(prefix.length, Math.max(0, fileRoom - suffixKeep));
            // the texts themselves are cut where their tokens are (not written again from the tokens: a tokenizer's
            // cleaning of spaces would change the code), a side with nothing to leave out kept as it is
            keptPrefix = prefixKeep == prefix.length ? keptPrefix
                    : tail(keptPrefix, bytes(model, prefix, 0, prefix.length - prefixKeep));
            keptSuffix = suffixKeep == suffix.length ? keptSuffix
                    : head(keptSuffix, bytes(model, suffix, 0, suffixKeep));
        }
        int from = firstKept(raw.extra(), room - fileRoom, model);
        if (!cut && from == 0) {
            return prompt;
        }
        ChatPrompt.Setup setup = ChatPrompt.Setup.forRaw(raw.cut(keptPrefix, keptSuffix,
                raw.extra().subList(from, raw.extra().size())));
        return new ChatPrompt(prompt.model(), prompt.identity(), setup, prompt.turns(), prompt.task(), settings);
    }

    /** The first of {@code files} kept when the first ones are left out until the rest fit in {@code room}. */
    private static int firstKept(List<ChatPrompt.File> files, int room, LlamaModel model) {
        int[] sizes = files.stream().mapToInt(file -> model.tokenize(file.name() + "\n" + file.text(), false, false)
                .length + CHUNK_MARKERS).toArray();
        return ChatPrompt.Raw.chunksLeftOut(sizes, room);
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
