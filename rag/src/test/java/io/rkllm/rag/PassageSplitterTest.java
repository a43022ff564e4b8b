package io.rkllm.rag;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

class PassageSplitterTest {
    private final PassageSplitter splitter = new PassageSplitter(240, 700);

    @Test
    void longParagraphsAreCutAtSentenceEnds() {
        String para = "This sentence is about forty-five characters. ".repeat(40).strip();
        List<String> out = splitter.split(para);
        assertThat(out).hasSizeGreaterThan(2).allMatch(p -> p.length() <= 700).allMatch(p -> p.endsWith("."));
    }

    @Test
    void chineseIsCutAtChinesePunctuation() {
        String para = "美樹營地位於新竹縣尖石鄉玉峰村，每年十二月楓紅時節遊客眾多。".repeat(40);
        List<String> out = splitter.split(para);
        assertThat(out).hasSizeGreaterThan(1).allMatch(p -> p.length() <= 700).allMatch(p -> p.endsWith("。"));
    }

    @Test
    void headingsStayWithTheirParagraphAndShortParagraphsMerge() {
        String text = "Pricing\n\nThe console costs $500. The competitor costs $400.\n\nShort one.\n\nAnother short one.";
        List<String> out = splitter.split(text);
        assertThat(out).hasSize(1);
        assertThat(out.get(0)).startsWith("Pricing\n\nThe console costs $500.");
    }

    @Test
    void hardWrappedLinesAreJoinedButListsAreNot() {
        assertThat(PassageSplitter.unwrap("It features an 8-core CPU running at 2.3Ghz, 12GB of\nGDDR5 RAM and a fast disk."))
                .isEqualTo("It features an 8-core CPU running at 2.3Ghz, 12GB of GDDR5 RAM and a fast disk.");
        assertThat(PassageSplitter.unwrap("The phases were the following ones:\n1. Deck\n2. Piers"))
                .isEqualTo("The phases were the following ones:\n1. Deck\n2. Piers");
    }

    @Test
    void veryLongSentenceIsCutAtSpaces() {
        String para = "word ".repeat(400).strip();
        assertThat(splitter.split(para)).allMatch(p -> p.length() <= 700 && !p.startsWith(" "));
    }
}
