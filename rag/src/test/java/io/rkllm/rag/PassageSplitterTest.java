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

    private static final String LISTING = """
            ```
            def greet(name):
                if not name:
                    return "hello"

                return "hello " + name
            ```""";

    @Test
    void aFencedBlockIsOneUnitWithItsBlankLinesAndIndentation() {
        String text = "Greeting people\n\nThe function falls back to a plain hello when no name is given, as here:\n\n"
                + LISTING + "\n\nNames are not checked any further.";
        List<String> out = new PassageSplitter(40, 700).split(text);
        assertThat(out).anySatisfy(p -> assertThat(p).contains("as here:\n\n" + LISTING));
        assertThat(String.join("\n\n", out)).contains("    if not name:\n        return \"hello\"\n\n    return");
    }

    @Test
    void theLinesOfAListingAreNotUnwrapped() {
        String text = "```\nresult = numbers.sort(reverse=True, key=lambda n: abs(n),\nkey2=None)\n```";
        assertThat(splitter.split(text)).containsExactly(text);
    }

    @Test
    void aLongListingIsCutBetweenLinesAndEachPieceFenced() {
        StringBuilder body = new StringBuilder();
        for (int i = 0; i < 60; i++) {
            body.append("    total = total + values[").append(i).append("]  # add the next value\n");
            if (i % 10 == 9) {
                body.append('\n');
            }
        }
        String text = "Summing by hand:\n\n```python\n" + body + "```\n\nThat is all.";
        List<String> out = splitter.split(text);
        List<String> code = out.stream().filter(p -> p.contains("total = total")).toList();
        assertThat(code).hasSizeGreaterThan(2).allMatch(p -> p.length() <= 700);
        for (String p : code) {
            assertThat(p.lines().filter(PassageSplitter::isFence).count()).as(p).isEqualTo(2);
            assertThat(p.substring(p.indexOf("```python"))).startsWith("```python\n    total").containsPattern("value\n```(\n|$)");
        }
        assertThat(String.join("\n", out).lines().filter(l -> l.contains("total = total"))).hasSize(60);
    }

    @Test
    void anUnclosedFenceIsClosed() {
        assertThat(splitter.split("```\nls -la /tmp")).containsExactly("```\nls -la /tmp\n```");
        assertThat(PassageSplitter.closeFences("Run it:\n\n```\nls -la")).isEqualTo("Run it:\n\n```\nls -la\n```");
        assertThat(PassageSplitter.closeFences("```\nls\n```")).isEqualTo("```\nls\n```");
    }
}
