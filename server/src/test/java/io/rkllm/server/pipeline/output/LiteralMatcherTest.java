package io.rkllm.server.pipeline.output;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

class LiteralMatcherTest {

    @Test
    void findsTheFirstMatchOrHoldsAPossibleStart() {
        LiteralMatcher matcher = new LiteralMatcher(List.of("abc", "<x>"));
        assertThat(matcher.scan("zzabczz", 0, false)).isEqualTo(new LiteralMatcher.Hit(2, 0));
        assertThat(matcher.scan("zz<x>", 0, false)).isEqualTo(new LiteralMatcher.Hit(2, 1));
        assertThat(matcher.scan("zzab", 0, false)).isEqualTo(new LiteralMatcher.Hit(2, LiteralMatcher.NONE));
        assertThat(matcher.scan("zzab", 0, true)).isEqualTo(new LiteralMatcher.Hit(4, LiteralMatcher.NONE));
        assertThat(matcher.scan("zzzz", 1, false)).isEqualTo(new LiteralMatcher.Hit(4, LiteralMatcher.NONE));
    }

    @Test
    void aHigherPriorityPatternThatMightStillMatchBlocksALowerOne() {
        LiteralMatcher matcher = new LiteralMatcher(List.of("<x>!", "<x>"));
        assertThat(matcher.scan("a<x>", 0, false)).isEqualTo(new LiteralMatcher.Hit(1, LiteralMatcher.NONE));
        assertThat(matcher.scan("a<x>?", 0, false)).isEqualTo(new LiteralMatcher.Hit(1, 1));
        assertThat(matcher.scan("a<x>", 0, true)).isEqualTo(new LiteralMatcher.Hit(1, 1));
    }

    @Test
    void neverMatchesInsideASurrogatePair() {
        String lowSurrogate = "\uDE00"; // second half of 😀 (U+1F600 = D83D DE00)
        LiteralMatcher matcher = new LiteralMatcher(List.of(lowSurrogate));
        assertThat(matcher.scan("a😀b", 0, false)).isEqualTo(new LiteralMatcher.Hit(4, LiteralMatcher.NONE));
    }

    @Test
    void withoutPatternsEverythingPasses() {
        assertThat(new LiteralMatcher(List.of()).scan("<abc", 0, false)).isEqualTo(new LiteralMatcher.Hit(4, LiteralMatcher.NONE));
    }
}
