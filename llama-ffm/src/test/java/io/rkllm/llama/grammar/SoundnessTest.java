package io.rkllm.llama.grammar;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Valid by construction, checked without a model: random texts drawn from each catalogue schema's grammar are
 * all JSON that the validator accepts, and the grammar's own matcher accepts each of them.
 */
class SoundnessTest {
    static List<SchemaCatalogue.Entry> catalogue() {
        return SchemaCatalogue.all();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("catalogue")
    void everyTextTheGrammarAllowsIsValid(SchemaCatalogue.Entry entry) {
        String grammar = JsonSchemaGrammar.of(entry.schema());
        GbnfMatcher matcher = new GbnfMatcher(grammar);
        GbnfSampler sampler = new GbnfSampler(grammar, entry.name().hashCode());
        for (int i = 0; i < 300; i++) {
            String text = sampler.sample();
            assertThat(entry.problems(text)).as("%s\n%s", text, grammar).isEmpty();
            assertThat(matcher.matches(text)).as(text).isTrue();
        }
    }
}
