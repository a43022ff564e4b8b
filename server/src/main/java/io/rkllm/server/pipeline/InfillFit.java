package io.rkllm.server.pipeline;

import io.rkllm.server.engine.contract.ChatPrompt;
import io.rkllm.server.pipeline.request.FileChunk;
import io.rkllm.server.pipeline.request.RawPrompt;
import java.util.List;
import java.util.Optional;
import java.util.function.ToIntFunction;

/**
 * A fill-in-the-middle prompt cut to the room it has, as llama-server's {@code /infill} cuts it: the file keeps at
 * most half the room, {@link ChatPrompt.Raw#FILE_ROOM} tokens at most (llama-server bounds it by its batch), the
 * text nearest the gap (the prefix's end, the suffix's start, the suffix a quarter of it at most); other files'
 * chunks the rest of the room, whole, the first ones left out first. The cut depends on nothing but the context
 * (not on the request's token limit, nor on the file's length), so that an editor's warm-up and the completions
 * after it keep the same chunks: the completion finds them in the cache.
 */
final class InfillFit {
    private InfillFit() {
    }

    /**
     * The prompt cut to {@code room} tokens by {@code estimate}, or empty when it fits as it is.
     *
     * @param room the tokens the prefix, the suffix and the other files' chunks may take together
     */
    static Optional<RawPrompt> cut(RawPrompt raw, int room, ToIntFunction<String> estimate) {
        if (!raw.cutToFit()) {
            return Optional.empty();
        }
        String prefix = raw.prefix();
        String suffix = raw.suffix().orElse("");
        int fileRoom = ChatPrompt.Raw.fileRoom(room);
        if (estimate.applyAsInt(prefix + suffix) > fileRoom) {
            suffix = head(suffix, Math.min(estimate.applyAsInt(suffix), Math.max(0, fileRoom / 4)), estimate);
            prefix = tail(prefix, Math.max(0, fileRoom - estimate.applyAsInt(suffix)), estimate);
        }
        // each chunk estimated once: an editor may send hundreds
        List<FileChunk> extra = raw.extra();
        int[] sizes = extra.stream().mapToInt(c -> estimate.applyAsInt(RawPrompt.textOf(List.of(c)))).toArray();
        extra = extra.subList(ChatPrompt.Raw.chunksLeftOut(sizes, room - fileRoom), extra.size());
        if (prefix.equals(raw.prefix()) && suffix.equals(raw.suffix().orElse(""))
                && extra.size() == raw.extra().size()) {
            return Optional.empty();
        }
        String keptSuffix = suffix;
        return Optional.of(new RawPrompt(prefix, raw.suffix().map(s -> keptSuffix), true, extra));
    }

    /** The longest start of {@code text} estimated at no more than {@code tokens}. */
    private static String head(String text, int tokens, ToIntFunction<String> estimate) {
        int keep = text.length();
        while (keep > 0 && estimate.applyAsInt(text.substring(0, keep)) > tokens) {
            keep = shrink(keep, tokens, estimate.applyAsInt(text.substring(0, keep)));
        }
        // not between the two halves of a character outside the BMP (an emoji)
        return text.substring(0, keep > 0 && Character.isHighSurrogate(text.charAt(keep - 1)) ? keep - 1 : keep);
    }

    /** The longest end of {@code text} estimated at no more than {@code tokens}. */
    private static String tail(String text, int tokens, ToIntFunction<String> estimate) {
        int keep = text.length();
        while (keep > 0 && estimate.applyAsInt(text.substring(text.length() - keep)) > tokens) {
            keep = shrink(keep, tokens, estimate.applyAsInt(text.substring(text.length() - keep)));
        }
        int from = text.length() - keep;
        return text.substring(from < text.length() && Character.isLowSurrogate(text.charAt(from)) ? from + 1 : from);
    }

    /** A shorter length, in proportion to the estimate's excess (a tenth less at least, so that it ends). */
    private static int shrink(int keep, int tokens, int estimated) {
        int proportional = (int) ((long) keep * tokens / Math.max(1, estimated));
        return Math.max(0, Math.min(proportional, keep - Math.max(1, keep / 10)));
    }
}
