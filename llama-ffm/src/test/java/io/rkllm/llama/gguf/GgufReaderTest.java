package io.rkllm.llama.gguf;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The pure-Java GGUF reader: what the catalogue lists, and damaged files refused with GgufFormatException only. */
class GgufReaderTest {
    @TempDir
    static Path dir;
    private static Path chat;
    private static Path embedding;
    private static Path f16;

    @BeforeAll
    static void write() throws IOException {
        chat = dir.resolve("chat.gguf");
        TinyLlama.write(chat, TinyLlama.Options.chat());
        embedding = dir.resolve("embed.gguf");
        TinyLlama.write(embedding, TinyLlama.Options.embeddingModel());
        f16 = dir.resolve("chat-f16.gguf");
        TinyLlama.write(f16, TinyLlama.Options.chat().withType(TensorType.F16));
    }

    @Test
    void theSummaryHasWhatAModelListShows() throws IOException {
        GgufSummary summary = GgufSummary.of(new GgufReader().read(chat));
        assertThat(summary.architecture()).isEqualTo("llama");
        assertThat(summary.name()).contains("tiny-llama");
        assertThat(summary.contextLength()).contains(2048L);
        assertThat(summary.embeddingLength()).contains(64L);
        assertThat(summary.blockCount()).contains(2L);
        assertThat(summary.quantisation()).isEqualTo("F32");
        assertThat(summary.chatTemplate()).contains(TinyLlama.CHAT_TEMPLATE);
        assertThat(summary.poolingType()).isEmpty();
        assertThat(summary.fileSize()).isEqualTo(Files.size(chat));
        int vocab = TinyLlama.vocabulary(TinyLlama.Options.chat()).size();
        long expected = 2L * vocab * 64 + 64 + 2 * (64 + 64 * 64 * 2 + 64 * 32 * 2 + 64 + 3 * 64 * 192);
        assertThat(summary.parameterCount()).isEqualTo(expected);
    }

    @Test
    void theCommandLineWritesTheModelsTheTestsWrite() throws IOException {
        Path file = dir.resolve("main.gguf");
        TinyLlama.main(new String[] {file.toString()});
        assertThat(Files.mismatch(file, chat)).isEqualTo(-1);
        Path embed = dir.resolve("main-embed.gguf");
        TinyLlama.main(new String[] {embed.toString(), "embedding"});
        assertThat(Files.mismatch(embed, embedding)).isEqualTo(-1);
    }

    @Test
    void quantisationAndPoolingComeFromTheFile() throws IOException {
        assertThat(GgufSummary.of(new GgufReader().read(f16)).quantisation()).isEqualTo("F16");
        assertThat(Files.size(f16)).isLessThan(Files.size(chat));
        assertThat(GgufSummary.of(new GgufReader().read(embedding)).poolingType()).contains(1L);
    }

    @Test
    void longArraysAreSummarisedAndShortOnesKept() throws IOException {
        GgufFile small = new GgufReader(16).read(chat);
        GgufArray tokens = small.array("tokenizer.ggml.tokens").orElseThrow();
        assertThat(tokens.length()).isEqualTo(TinyLlama.vocabulary(TinyLlama.Options.chat()).size());
        assertThat(tokens.complete()).isFalse();
        GgufFile whole = new GgufReader(100_000).read(chat);
        List<Object> all = whole.array("tokenizer.ggml.tokens").orElseThrow().values();
        assertThat(all).hasSize((int) tokens.length()).contains("Ġ", TinyLlama.IM_START, TinyLlama.IM_END);
        assertThat(whole.tensors()).extracting(GgufTensor::name).contains("token_embd.weight", "blk.1.ffn_down.weight");
    }

    @Test
    void writerAndReaderAgreeOnEveryValueType() throws IOException {
        Path file = dir.resolve("values.gguf");
        new GgufWriter().putString("s", "héllo").putUint32("u", 4_000_000_000L).putInt32("i", -5)
                .putUint64("l", Long.MAX_VALUE).putFloat32("f", 0.25f).putBool("b", true)
                .putStrings("ss", List.of("a", "b")).putInt32s("is", new int[] {1, -2})
                .putFloat32s("fs", new float[] {1.5f}).write(file);
        GgufFile read = new GgufReader().read(file);
        assertThat(read.string("s")).contains("héllo");
        assertThat(read.integer("u")).contains(4_000_000_000L);
        assertThat(read.integer("i")).contains(-5L);
        assertThat(read.integer("l")).contains(Long.MAX_VALUE);
        assertThat(read.number("f")).contains(0.25);
        assertThat(read.metadata().get("b")).isEqualTo(true);
        assertThat(read.array("ss").orElseThrow().values()).containsExactly("a", "b");
        assertThat(read.array("is").orElseThrow().values()).containsExactly(1L, -2L);
        assertThat(read.array("fs").orElseThrow().values()).containsExactly(1.5);
        assertThat(read.tensors()).isEmpty();
    }

    @Test
    void everyTruncationIsAFormatError() throws IOException {
        byte[] whole = Files.readAllBytes(chat);
        Path cut = dir.resolve("cut.gguf");
        for (int length : new int[] {0, 3, 7, 20, 100, 1000, 5000, 20_000, whole.length / 2, whole.length - 1}) {
            Files.write(cut, java.util.Arrays.copyOf(whole, length));
            assertThatThrownBy(() -> new GgufReader().read(cut)).as("cut at %d", length)
                    .isInstanceOf(GgufFormatException.class);
        }
    }

    @Test
    void damagedBytesNeverEscapeAsAnythingButAFormatError() throws IOException {
        byte[] whole = Files.readAllBytes(chat);
        int header = (int) new GgufReader().read(chat).dataOffset();
        Path damaged = dir.resolve("damaged.gguf");
        Random random = new Random(20261127);
        int refused = 0;
        for (int round = 0; round < 120; round++) {
            byte[] copy = whole.clone();
            for (int flips = 0; flips < 1 + random.nextInt(4); flips++) {
                copy[random.nextInt(header)] = (byte) random.nextInt(256);
            }
            Files.write(damaged, copy);
            Throwable thrown = catchThrowable(() -> new GgufReader().read(damaged));
            if (thrown != null) {
                assertThat(thrown).as("round %d", round).isInstanceOf(GgufFormatException.class);
                refused++;
            }
        }
        assertThat(refused).isGreaterThan(5);
    }

    @Test
    void notGgufIsSaidPlainly() throws IOException {
        Path text = dir.resolve("readme.gguf");
        Files.writeString(text, "hello, this is text");
        assertThatThrownBy(() -> new GgufReader().read(text)).isInstanceOf(GgufFormatException.class)
                .hasMessageContaining("not a GGUF file");
    }
}
