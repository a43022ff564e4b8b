package io.rkllm.rag;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class RagCleanCommandTest {
    @Test
    void cleansEveryPageDirectory(@TempDir Path tmp) throws IOException {
        Path in = tmp.resolve("in");
        Files.createDirectories(in.resolve("a"));
        Files.createDirectories(in.resolve("b"));
        Files.createDirectories(in.resolve("not-a-page"));
        String article = "Home\nNews\nSign in\n\n" + ("The committee published its final report on Tuesday and "
                + "recommended that the plant be closed by the end of the decade, citing safety concerns. ").repeat(3)
                + "\n\nShare\nFacebook\nTwitter\nPrivacy policy\n";
        Files.writeString(in.resolve("a/source.txt"), article);
        Files.writeString(in.resolve("b/source.txt"), "Short clean text that should stay as it is.");
        Path out = tmp.resolve("out");
        int n = new RagCleanCommand().run(in, out);
        assertThat(n).isEqualTo(2);
        assertThat(Files.readString(out.resolve("a.txt"))).contains("The committee published").doesNotContain("Sign in");
        assertThat(Files.readString(out.resolve("b.txt"))).contains("Short clean text");
        assertThat(out.resolve("not-a-page.txt")).doesNotExist();
    }
}
