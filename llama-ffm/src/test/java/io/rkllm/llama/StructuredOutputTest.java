package io.rkllm.llama;

import static org.assertj.core.api.Assertions.assertThat;

import io.rkllm.llama.grammar.GbnfMatcher;
import io.rkllm.llama.grammar.JsonSchemaGrammar;
import io.rkllm.llama.grammar.JsonWhitespace;
import io.rkllm.llama.grammar.SchemaCatalogue;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Structured output valid by construction, with the real library: the tiny model (random weights: left alone it
 * writes nonsense) generates under each catalogue schema's grammar, greedily and by seeded draws at high
 * temperatures, and every answer ends by itself and is JSON the validator accepts. Schemas that let a model write
 * without end (a string without maxLength) may not end within the budget: what was written is then the beginning
 * of a text the grammar allows.
 */
class StructuredOutputTest {
    private static final String PROMPT = "<|im_start|>user\nAnswer in JSON.<|im_end|>\n<|im_start|>assistant\n";
    private static final int BUDGET = 400;
    private static final int OPEN_BUDGET = 120;
    private static LlamaModel model;

    @BeforeAll
    static void load() {
        model = TestLlama.runtime().load(ModelParams.of(TestLlama.chatModel()));
    }

    @AfterAll
    static void close() {
        model.close();
    }

    static List<SchemaCatalogue.Entry> bounded() {
        return SchemaCatalogue.bounded();
    }

    static List<SchemaCatalogue.Entry> open() {
        return SchemaCatalogue.all().stream().filter(SchemaCatalogue.Entry::open).toList();
    }

    private static List<SamplingParams> settings(String grammar) {
        return List.of(SamplingParams.greedy().withGrammar(grammar),
                SamplingParams.random(1.5f, 11).withGrammar(grammar),
                SamplingParams.random(3f, 12).withGrammar(grammar));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("bounded")
    void everyAnswerEndsAndIsValid(SchemaCatalogue.Entry entry) {
        String grammar = JsonSchemaGrammar.of(entry.schema(), JsonWhitespace.COMPACT);
        for (SamplingParams params : settings(grammar)) {
            Answer answer = generate(params, BUDGET);
            assertThat(answer.finished).as("ended within %d tokens: %s", BUDGET, answer.text).isTrue();
            assertThat(entry.problems(answer.text)).as("%s at temperature %s", answer.text, params.temperature())
                    .isEmpty();
        }
    }

    @Test
    void indentedWhitespaceToo() {
        SchemaCatalogue.Entry entry = SchemaCatalogue.bounded().getFirst();
        String grammar = JsonSchemaGrammar.of(entry.schema());
        for (SamplingParams params : settings(grammar)) {
            Answer answer = generate(params, 2 * BUDGET);
            assertThat(answer.finished).as(answer.text).isTrue();
            assertThat(entry.problems(answer.text)).as(answer.text).isEmpty();
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("open")
    void openSchemasAreFollowedAsFarAsTheyGo(SchemaCatalogue.Entry entry) {
        String grammar = JsonSchemaGrammar.of(entry.schema(), JsonWhitespace.COMPACT);
        GbnfMatcher matcher = new GbnfMatcher(grammar);
        for (SamplingParams params : settings(grammar)) {
            Answer answer = generate(params, OPEN_BUDGET);
            if (answer.finished) {
                assertThat(entry.problems(answer.text)).as(answer.text).isEmpty();
            } else {
                assertThat(matcher.matchesPrefix(answer.text)).as(answer.text).isTrue();
            }
        }
    }

    @Test
    void anyJsonObject() {
        String grammar = JsonSchemaGrammar.anyObject(JsonWhitespace.COMPACT);
        GbnfMatcher matcher = new GbnfMatcher(grammar);
        for (SamplingParams params : settings(grammar)) {
            Answer answer = generate(params, OPEN_BUDGET);
            assertThat(answer.text).startsWith("{");
            assertThat(answer.finished ? SchemaCatalogue.problems("{\"type\":\"object\"}", answer.text).isEmpty()
                    : matcher.matchesPrefix(answer.text)).as(answer.text).isTrue();
        }
    }

    private record Answer(String text, boolean finished, List<Integer> tokens) {
    }

    private static Answer generate(SamplingParams params, int budget) {
        try (LlamaContext context = model.newContext(ContextParams.generation(1024, 1, 1));
             Batch batch = new Batch(256, 1);
             Sampler sampler = model.newSampler(params)) {
            int[] prompt = model.tokenize(PROMPT, true, true);
            int index = Greedy.prefill(context, batch, 0, prompt, 0);
            List<Integer> out = new ArrayList<>();
            for (int i = 0; i < budget; i++) {
                int token = sampler.sample(context, index);
                if (model.isEndOfGeneration(token)) {
                    return new Answer(text(out), true, out);
                }
                out.add(token);
                batch.clear();
                index = batch.add(token, prompt.length + i, 0, true);
                assertThat(context.decode(batch)).isEqualTo(DecodeStatus.OK);
            }
            return new Answer(text(out), false, out);
        }
    }

    /** The answer's text; cut off mid-character, the incomplete character's replacement is left out. */
    private static String text(List<Integer> tokens) {
        String text = model.detokenize(tokens.stream().mapToInt(Integer::intValue).toArray(), false);
        return text.replaceAll("\uFFFD+$", "");
    }
}
