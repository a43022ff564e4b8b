package io.rkllm.llama;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/**
 * A generation context turns flash attention on where the build has the switch (b4916's {@code flash_attn}): its
 * sequences share one KV cache, each token's attention runs over every cell in use, and only the flash kernel skips
 * the cells of other sequences. Later builds choose by themselves ({@code flash_attn_type} auto, on for the CPU).
 * What the library used is read from its own log of the context's parameters.
 */
class FlashAttentionTest extends WithChatModel {

    /** llama.cpp's log lines (at debug level here) while {@code params} makes a context. */
    static List<String> logOf(ContextParams params) {
        Logger logger = (Logger) LoggerFactory.getLogger("llama.cpp");
        Level before = logger.getLevel();
        ListAppender<ILoggingEvent> lines = new ListAppender<>();
        lines.start();
        logger.addAppender(lines);
        logger.setLevel(Level.DEBUG);
        try (LlamaContext context = model.newContext(params)) {
            assertThat(context.contextLength()).isPositive();
        } finally {
            logger.setLevel(before);
            logger.detachAppender(lines);
        }
        return lines.list.stream().map(ILoggingEvent::getFormattedMessage).toList();
    }

    static String flashAttention(List<String> log) {
        return log.stream().filter(l -> l.contains("flash_attn")).map(l -> l.replaceAll(".*flash_attn\\s*=\\s*", "")
                .strip()).findFirst().orElseThrow(() -> new AssertionError("no flash_attn line in " + log));
    }

    @Test
    void aGenerationContextAttendsWithTheFlashKernel() {
        String generation = flashAttention(logOf(ContextParams.generation(512, 3, 1)));
        String plain = flashAttention(logOf(new ContextParams(512, 512, 512, 3, 1, 1, false, Pooling.UNSPECIFIED,
                true)));
        if (TestLlama.runtime().info().identity().generation() == LayoutGeneration.B4916) {
            assertThat(generation).isEqualTo("1");
            assertThat(plain).as("the library's default").isEqualTo("0");
        } else {
            assertThat(generation).as("left to the library").isEqualTo(plain);
        }
    }
}
