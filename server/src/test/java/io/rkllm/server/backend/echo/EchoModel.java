package io.rkllm.server.backend.echo;

import io.rkllm.server.engine.contract.BackendModel;
import io.rkllm.server.engine.contract.Cancellation;
import io.rkllm.server.engine.contract.ChatPrompt;
import io.rkllm.server.engine.contract.EmbeddingEnd;
import io.rkllm.server.engine.contract.EncoderInfo;
import io.rkllm.server.engine.contract.GenerationEvent;
import io.rkllm.server.engine.contract.GenerationStats;
import io.rkllm.server.engine.contract.PromptTemplate;
import io.rkllm.server.engine.contract.StopReason;
import io.rkllm.server.engine.contract.TokenLogprob;
import io.rkllm.server.engine.contract.TokenSink;
import io.rkllm.server.engine.contract.cache.CacheContents;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * One loaded echo model: a chat answer is the prompt's last message after the engine's prefix, one word a token; an
 * embedding is one row per word, each the counts of the letters a to z in it. Thread-safe: it holds nothing.
 */
final class EchoModel implements BackendModel {
    private final boolean embedding;
    private final String prefix;

    EchoModel(boolean embedding, String prefix) {
        this.embedding = embedding;
        this.prefix = prefix;
    }

    @Override
    public int parallelGenerations() {
        return embedding ? 1 : 2;
    }

    @Override
    public GenerationEvent.End generate(ChatPrompt prompt, int maxTokens, TokenSink sink, Cancellation cancellation) {
        String last = prompt.messages().getLast().content();
        List<String> words = words(prefix + " " + last);
        int sent = 0;
        for (String word : words) {
            if (cancellation.isCancelled()) {
                return finished(StopReason.CANCELLED, prompt, sent);
            }
            if (maxTokens > 0 && sent == maxTokens) {
                return finished(StopReason.LENGTH, prompt, sent);
            }
            sent++;
            String piece = sent == 1 ? word : " " + word;
            if (prompt.settings().logprobs().isPresent()) {
                // a made-up distribution: the n-th word had probability 1/(n+1)
                byte[] bytes = piece.getBytes(StandardCharsets.UTF_8);
                sink.logprob(new TokenLogprob(piece, bytes, -Math.log(sent + 1), List.of()));
            }
            sink.text(piece, sent);
        }
        return finished(StopReason.END, prompt, sent);
    }

    private static GenerationEvent.End finished(StopReason reason, ChatPrompt prompt, int tokens) {
        int promptTokens = prompt.messages().stream().mapToInt(m -> words(m.content()).size()).sum();
        return new GenerationEvent.Done(reason, new GenerationStats(1, promptTokens, 1, tokens), 0,
                Optional.empty(), "echo");
    }

    private static List<String> words(String text) {
        return List.of(text.strip().split("\\s+"));
    }

    @Override
    public CacheContents held() {
        return CacheContents.NOTHING;
    }

    @Override
    public void readyForEmbeddings(Optional<PromptTemplate> template) {
        // nothing is cached between texts
    }

    @Override
    public EmbeddingEnd embed(String text, Cancellation cancellation) {
        if (cancellation.isCancelled()) {
            return new EmbeddingEnd.Aborted();
        }
        List<float[]> rows = words(text).stream().map(EchoModel::letterCounts).toList();
        return new EmbeddingEnd.Rows(26, rows, new GenerationStats(1, rows.size(), 0, 0));
    }

    static float[] letterCounts(String word) {
        float[] counts = new float[26];
        for (char c : word.toLowerCase(Locale.ROOT).toCharArray()) {
            if (c >= 'a' && c <= 'z') {
                counts[c - 'a']++;
            }
        }
        return counts;
    }

    @Override
    public int loadedSlots() {
        return 1;
    }

    @Override
    public Optional<EncoderInfo> encoder() {
        return Optional.empty();
    }

    @Override
    public void close() {
        // nothing native to free
    }
}
