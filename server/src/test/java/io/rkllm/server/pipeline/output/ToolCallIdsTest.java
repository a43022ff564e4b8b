package io.rkllm.server.pipeline.output;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;

class ToolCallIdsTest {

    @Test
    void idsHaveThePrefixAnd24Alphanumerics() {
        ToolCallIds ids = ToolCallIds.random();
        Set<String> seen = new HashSet<>();
        for (int i = 0; i < 1000; i++) {
            String id = ids.next();
            assertThat(id).matches("call_[A-Za-z0-9]{24}");
            seen.add(id);
        }
        assertThat(seen).hasSize(1000);
    }

    @Test
    void theSameSeedGivesTheSameIds() {
        ToolCallIds a = ToolCallIds.seeded(42);
        ToolCallIds b = ToolCallIds.seeded(42);
        for (int i = 0; i < 10; i++) {
            assertThat(a.next()).isEqualTo(b.next());
        }
        assertThat(ToolCallIds.seeded(1).next()).isNotEqualTo(ToolCallIds.seeded(2).next());
    }
}
