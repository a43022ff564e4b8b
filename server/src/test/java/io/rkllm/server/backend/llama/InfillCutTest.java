package io.rkllm.server.backend.llama;

import static org.assertj.core.api.Assertions.assertThat;

import io.rkllm.llama.LlamaModel;
import io.rkllm.server.engine.contract.ChatPrompt;
import io.rkllm.server.engine.contract.cache.Trim;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * An editor's file cut by its tokens with the tiny model's tokenizer: the ends nearest the gap kept as they were
 * written (no space cleaned, no character halved), the two within the room.
 */
class InfillCutTest {
    private static final int CONTEXT = 1024;

    @TempDir
    static Path dir;
    static GgufModel model;

    @BeforeAll
    static void load() throws Exception {
        model = TinyGgufModel.load(dir, CONTEXT, 1);
    }

    @AfterAll
    static void close() {
        model.close();
    }

    private static ChatPrompt infill(String prefix, String suffix) {
        return infill(prefix, suffix, List.of());
    }

    private static ChatPrompt infill(String prefix, String suffix, List<ChatPrompt.File> files) {
        return new ChatPrompt("tiny", new ChatPrompt.Identity("k", List.of(), Trim.NONE, List.of("u"), Optional::of),
                ChatPrompt.Setup.forRaw(new ChatPrompt.Raw(prefix, Optional.of(suffix), true, files)),
                new ChatPrompt.Messages(List.of(ChatPrompt.Message.of("user", prefix + suffix))), Optional.empty(),
                new ChatPrompt.Settings(false, Optional.empty(), Optional.empty(), 16, CONTEXT));
    }

    @Test
    void theEndsNearestTheGapAreKeptAsWritten() {
        LlamaModel llama = model.loop().model();
        String prefix = "let s = 'a ' + b ; é .then(r => r.json())\n".repeat(60);
        String suffix = "\n    .done() ? 1 : 0 ;\n".repeat(60);
        ChatPrompt.Raw cut = InfillCut.fit(infill(prefix, suffix), llama).setup().raw().orElseThrow();
        assertThat(prefix).endsWith(cut.prefix());
        assertThat(suffix).startsWith(cut.suffix().orElseThrow());
        assertThat(cut.prefix()).isNotEmpty().isNotEqualTo(prefix);
        int tokens = llama.tokenize(cut.prefix(), false, false).length
                + llama.tokenize(cut.suffix().orElseThrow(), false, false).length;
        assertThat(tokens).isLessThanOrEqualTo(CONTEXT - 16);
        assertThat(llama.tokenize(cut.suffix().orElseThrow(), false, false).length).isLessThanOrEqualTo(CONTEXT / 4);
        // a prompt that fits is not touched
        ChatPrompt small = infill("def f(", ")\n");
        assertThat(InfillCut.fit(small, llama)).isSameAs(small);
    }

    @Test
    void otherFilesTakeWhatTheFileLeavesWholeTheFirstLeftOutFirst() {
        LlamaModel llama = model.loop().model();
        List<ChatPrompt.File> files = new java.util.ArrayList<>();
        for (int i = 0; i < 12; i++) {
            files.add(new ChatPrompt.File("file_" + i + ".py", ("v" + i + " = load(" + i + ")\n").repeat(8)));
        }
        ChatPrompt.Raw cut = InfillCut.fit(infill("def f(", ")\n", files), llama).setup().raw().orElseThrow();
        assertThat(cut.prefix()).isEqualTo("def f(");
        assertThat(cut.suffix()).contains(")\n");
        assertThat(cut.extra()).isNotEmpty().isEqualTo(files.subList(files.size() - cut.extra().size(), files.size()));
        // the chunks have the room the file may take left over: the context less the answer's fixed room, halved
        int room = CONTEXT - ChatPrompt.Raw.CUT_RESERVE - 24;
        int chunkRoom = room - Math.min(ChatPrompt.Raw.FILE_ROOM, room / 2);
        int tokens = 0;
        for (ChatPrompt.File file : cut.extra()) {
            tokens += llama.tokenize(file.name() + "\n" + file.text(), false, false).length + 24;
        }
        assertThat(tokens).isLessThanOrEqualTo(chunkRoom);
        ChatPrompt.File dropped = files.get(files.size() - cut.extra().size() - 1);
        assertThat(tokens + llama.tokenize(dropped.name() + "\n" + dropped.text(), false, false).length + 24)
                .as("one more would not fit").isGreaterThan(chunkRoom);
        // the file's length changes nothing of them: an editor's warm-up (no file) and its completions keep the same
        String big = "let s = 'a ' + b ;\n".repeat(200);
        assertThat(InfillCut.fit(infill(big, big, files), llama).setup().raw().orElseThrow().extra())
                .isEqualTo(cut.extra());
        assertThat(InfillCut.fit(infill("", "", files), llama).setup().raw().orElseThrow().extra())
                .isEqualTo(cut.extra());
    }
}
