package io.rkllm.server.backend.llama;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.networknt.schema.SchemaRegistry;
import com.networknt.schema.SpecificationVersion;
import io.rkllm.server.engine.contract.cache.Trim;
import io.rkllm.server.engine.contract.AnswerShape;
import io.rkllm.server.engine.contract.Cancellation;
import io.rkllm.server.engine.contract.ChatPrompt;
import io.rkllm.server.engine.contract.GenerationEvent;
import io.rkllm.server.engine.contract.Sampling;
import io.rkllm.server.engine.contract.StopReason;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * An answer's shape as a grammar over the real library: from the first token, or from the end of the reasoning on
 * (the model thinks freely, then answers in the grammar). The tiny model's weights are random, so without the
 * grammar it never writes JSON.
 */
@Timeout(120)
class GrammarAnswerTest {
    static final ObjectMapper JSON = new ObjectMapper();
    static final String SCHEMA = "{\"type\":\"object\",\"properties\":{\"id\":{\"type\":\"integer\",\"minimum\":0,"
            + "\"maximum\":99},\"tag\":{\"enum\":[\"cpu\",\"npu\"]}},\"required\":[\"id\",\"tag\"],"
            + "\"additionalProperties\":false}";
    static final Sampling GREEDY = TinyGgufModel.GREEDY;
    /** Greedy with a repetition penalty: the prompt's tokens are not fed to a chain with a grammar. */
    static final Sampling PENALISED = new Sampling(0, 1, 0, 1.2, 0, 0, 0, OptionalLong.empty());

    @TempDir
    static Path dir;
    static GgufModel model;

    @BeforeAll
    static void load() throws Exception {
        model = TinyGgufModel.load(dir, 512, 1);
    }

    @AfterAll
    static void close() {
        model.close();
    }

    static ChatPrompt prompt(String question, Sampling sampling, Optional<AnswerShape> shape) {
        return new ChatPrompt("tiny", new ChatPrompt.Identity(question + shape, List.of(), Trim.NONE,
                List.of("u:" + question), Optional::of), new ChatPrompt.Setup("", Optional.empty(), false,
                Optional.empty()), new ChatPrompt.Messages(List.of(ChatPrompt.Message.of("user", question))),
                Optional.empty(), new ChatPrompt.Settings(false, Optional.of(sampling), shape, 16, 512));
    }

    record Answer(GenerationEvent.End end, String text) {
    }

    static Answer generate(ChatPrompt prompt, int tokens) {
        StringBuilder text = new StringBuilder();
        GenerationEvent.End end = model.generate(prompt, tokens, (t, n) -> text.append(t), new Cancellation());
        return new Answer(end, text.toString());
    }

    @SuppressWarnings("unchecked")
    static java.util.Map<String, Object> schema() {
        try {
            return JSON.readValue(SCHEMA, java.util.LinkedHashMap.class);
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    static void assertValid(String json) throws Exception {
        JsonNode value = JSON.readTree(json);
        assertThat(SchemaRegistry.withDefaultDialect(SpecificationVersion.DRAFT_2020_12)
                .getSchema(JSON.readTree(SCHEMA)).validate(value)).as(json).isEmpty();
    }

    static void assertEndedByTheModel(Answer answer) {
        GenerationEvent.End end = answer.end();
        assertThat(end).as(answer.text()).isInstanceOfSatisfying(GenerationEvent.Done.class,
                f -> assertThat(f.reason()).as(answer.text()).isEqualTo(StopReason.END));
    }

    @Test
    void fromTheFirstTokenTheAnswerIsTheSchemasJsonAndEnds() throws Exception {
        String question = "Which unit runs the model?";
        String free = generate(prompt(question, GREEDY, Optional.empty()), 40).text();
        assertThat(free).doesNotStartWith("{");

        for (Sampling sampling : List.of(GREEDY, PENALISED)) {
            Answer shaped = generate(prompt(question, sampling,
                    Optional.of(new AnswerShape.JsonSchema(schema(), Optional.empty()))), 200);
            assertEndedByTheModel(shaped);
            assertValid(shaped.text());
        }
        // any object: random weights write strings without end, so only its start is certain
        Answer object = generate(prompt(question, GREEDY, Optional.of(new AnswerShape.JsonObject(Optional.empty()))),
                40);
        assertThat(object.text()).startsWith("{");
    }

    @Test
    void afterTheReasoningsEndTheModelWritesFreelyUpToItThenInTheGrammar() throws Exception {
        String question = "Think first, then answer.";
        String free = generate(prompt(question, GREEDY, Optional.empty()), 40).text();
        // stands for </think>: a text the model writes early of its own accord
        String end = free.strip().substring(0, Math.min(3, free.strip().length()));
        assertThat(end).isNotBlank();
        int endAt = free.indexOf(end) + end.length();

        Answer shaped = generate(prompt(question, GREEDY,
                Optional.of(new AnswerShape.JsonSchema(schema(), Optional.of(end)))), 200);
        assertEndedByTheModel(shaped);
        assertThat(shaped.text()).startsWith(free.substring(0, endAt));
        // the rest of the token that completed the tag came before the grammar took over
        String rest = shaped.text().substring(endAt);
        int json = rest.indexOf('{');
        assertThat(json).as(shaped.text()).isGreaterThanOrEqualTo(0);
        assertThat(free.substring(endAt)).startsWith(rest.substring(0, json));
        assertValid(rest.substring(json));
    }

    @Test
    void aGrammarTheLibraryRefusesLeavesTheAnswerFreeAndTheSequenceFree() throws Exception {
        ChatPrompt chat = prompt("Anything?", GREEDY, Optional.empty());
        assertThat(submitted(chat, Optional.empty())).doesNotMatch("a+");
        for (String grammar : List.of("root ::= missing-rule", "root ::= \"a\"{2001}")) {
            // written as without a grammar (the pipeline checks it): no failure that every retry would meet again
            assertThat(submitted(chat, Optional.of(new AnswerGrammar(grammar, Optional.empty())))).as(grammar)
                    .isNotEmpty().doesNotMatch("a+");
        }
        // the model has one sequence for chats: a leaked one would leave this waiting for ever
        Answer after = generate(prompt("Still there?", GREEDY, Optional.empty()), 8);
        assertThat(after.end()).isInstanceOf(GenerationEvent.Done.class);
        assertThat(model.loop().ended()).isFalse();
    }

    /** The text of a generation handed straight to the loop, which must end as done. */
    private static String submitted(ChatPrompt chat, Optional<AnswerGrammar> grammar) throws InterruptedException {
        SubmittedGeneration run = new SubmittedGeneration(chat, "Anything?", false,
                LlamaSampling.of(GREEDY, model.loop().model(), 512), grammar, 8);
        model.loop().submit(run);
        StringBuilder text = new StringBuilder();
        SubmittedGeneration.Event event;
        while ((event = run.events().take()) instanceof SubmittedGeneration.Event.Text t) {
            text.append(t.text());
        }
        assertThat(event).isInstanceOfSatisfying(SubmittedGeneration.Event.End.class,
                e -> assertThat(e.end()).isInstanceOf(GenerationEvent.Done.class));
        return text.toString();
    }
}
