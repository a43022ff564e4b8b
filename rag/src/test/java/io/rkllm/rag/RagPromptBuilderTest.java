package io.rkllm.rag;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.LocalDate;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class RagPromptBuilderTest {
    private static final LocalDate TODAY = LocalDate.of(2025, 6, 1);
    private static final TokenCounter QUARTER = text -> (text.length() + 3) / 4;
    private static final String QUESTION = Fixtures.read("web-question.txt").strip();

    private final RagPromptBuilder builder = new RagPromptBuilder();

    private static RagInput input(int ctx, RagMessage... messages) {
        return new RagInput(List.of(messages), null, ctx, 512, 0, QUARTER, TODAY, RagOptions.defaults());
    }

    private RagResult web(int ctx) {
        return builder.build(input(ctx, RagMessage.system("You are a helpful assistant."),
                RagMessage.user(Fixtures.read("web-user-message.txt"))));
    }

    // ------------------------------------------------------------------ detection

    @Test
    void detectsDefaultTemplateInUserMessage() {
        RagResult r = web(4096);
        assertThat(r.detected()).isTrue();
        assertThat(r.question()).isEqualTo(QUESTION);
        assertThat(r.systemText()).isEqualTo("You are a helpful assistant.");
        assertThat(r.userText()).contains("According to the above, how much does the Xbox One X cost compared to the PS4 Pro?")
                .doesNotContain("<source", "<context>", "### Task", "<user_query>", "### Guidelines");
        assertThat(r.sources()).isNotEmpty();
        assertThat(r.stats().inputChars()).isGreaterThan(20_000);
        assertThat(r.userText().length()).isLessThan(r.stats().inputChars() / 3);
    }

    @Test
    void detectsDefaultTemplateInSystemMessage() {
        RagResult r = builder.build(input(4096, RagMessage.system(Fixtures.read("web-system-message.txt")),
                RagMessage.user(QUESTION)));
        assertThat(r.detected()).isTrue();
        assertThat(r.systemText()).isEqualTo("You are a helpful assistant. Be concise.");
        assertThat(r.question()).isEqualTo(QUESTION);
        assertThat(r.userText()).startsWith("[1] ").contains("\n\nAccording to the above, how much does the Xbox One X")
                .endsWith("If the text does not contain the answer, say so.").doesNotContain("<source", "### Task");
    }

    @Test
    void canKeepTheReferenceInTheSystemMessage() {
        RagInput in = input(4096, RagMessage.system(Fixtures.read("web-system-message.txt")), RagMessage.user(QUESTION))
                .withOptions(RagOptions.defaults().withContextInUserMessage(false));
        RagResult r = builder.build(in);
        assertThat(r.userText()).isEqualTo(QUESTION);
        assertThat(r.systemText()).startsWith("You are a helpful assistant. Be concise.").contains("[1] ")
                .doesNotContain("<source");
    }

    @Test
    void detectsEditedTemplateWithSourceBlocksOnly() {
        String user = "Answer with the notes below and cite them.\n\n"
                + Fixtures.source("1", "notes.txt", "The meeting moved to Thursday at 10:00 in room 4.")
                + Fixtures.source("2", "agenda.txt", "Budget review, hiring plan and the office move.")
                + "\nWhen is the meeting?";
        RagResult r = builder.build(input(4096, RagMessage.user(user)));
        assertThat(r.detected()).isTrue();
        assertThat(r.question()).isEqualTo("When is the meeting?");
        assertThat(r.userText()).contains("[1] The meeting moved to Thursday").doesNotContain("<source");
    }

    @Test
    void detectsContextBlockWithoutSources() {
        String user = "Use the following context:\n<context>\nThe office closes at 18:00 on Fridays.\n</context>\n\n"
                + "When does the office close on Friday?";
        RagResult r = builder.build(input(4096, RagMessage.user(user)));
        assertThat(r.detected()).isTrue();
        assertThat(r.question()).isEqualTo("When does the office close on Friday?");
        assertThat(r.userText()).contains("The office closes at 18:00 on Fridays.").doesNotContain("<context>", "[1]");
    }

    @Test
    void detectsLegacyTemplateWithOldSourceFormat() {
        RagResult r = builder.build(input(4096, RagMessage.user(Fixtures.read("legacy-user-message.txt"))));
        assertThat(r.detected()).isTrue();
        assertThat(r.question()).startsWith("Which status code does a remoteStorage server return");
        assertThat(r.sources()).extracting(KeptSource::id).containsAnyOf("1", "2");
        assertThat(r.userText()).contains("412").doesNotContain("<source_context>", "learned knowledge");
    }

    @Test
    void requestWithoutContextPassesThroughUntouched() {
        String user = "How do I embed a video? I tried <video><source src=\"a.mp4\" type=\"video/mp4\"></video>.";
        RagResult r = builder.build(input(4096, RagMessage.system("Be brief."), RagMessage.user(user)));
        assertThat(r.detected()).isFalse();
        assertThat(r.userText()).isSameAs(user);
        assertThat(r.systemText()).isEqualTo("Be brief.");
        assertThat(r.sources()).isEmpty();
        assertThat(r.recommendThinkingOff()).isFalse();
    }

    @Test
    void questionsAboutMarkupAreNotContext() {
        for (String user : List.of("How do I read <context>abc</context> with lxml?",
                "Why does <source src=\"a.webm\"></source> not play in Safari?")) {
            RagResult r = builder.build(input(4096, RagMessage.user(user)));
            assertThat(r.detected()).as(user).isFalse();
            assertThat(r.userText()).isSameAs(user);
        }
    }

    @Test
    void disabledOptionPassesThroughUntouched() {
        String user = Fixtures.read("web-user-message.txt");
        RagResult r = builder.build(input(4096, RagMessage.user(user))
                .withOptions(RagOptions.defaults().withEnabled(false)));
        assertThat(r.detected()).isFalse();
        assertThat(r.userText()).isSameAs(user);
    }

    // ------------------------------------------------------------------ web vs document

    @Test
    void webPagesAreCleanedDocumentChunksAreNot() {
        RagResult web = web(8192);
        assertThat(web.sources()).allMatch(KeptSource::web);
        assertThat(web.userText()).doesNotContain("Engadget Score", "Buy Now");

        RagResult docs = builder.build(input(8192, RagMessage.user(Fixtures.read("docs-user-message.txt"))));
        assertThat(docs.sources()).isNotEmpty().noneMatch(KeptSource::web);
        assertThat(docs.sources()).extracting(KeptSource::name).contains("draft-dejong-remotestorage-04.txt");
        assertThat(docs.userText()).contains("412");
    }

    @Test
    void codeOfATechnicalPageReachesThePromptFenced() {
        String user = Fixtures.defaultTemplate(Fixtures.source("1", "https://fetchkit.example.org/quickstart/",
                TechnicalPagesTest.DOCS_PAGE), "How do I set the timeout of fetchkit in its configuration file?");
        RagResult r = builder.build(input(4096, RagMessage.user(user)));
        assertThat(r.nothingRelevant()).isFalse();
        assertThat(r.userText()).contains("Settings are read from the environment first, then from a file named fetchkit.toml",
                "```\n[client]\ntimeout = 30\nretries = 3\n```").doesNotContain("Copy", "Changelog");
        assertThat(r.userText().lines().filter(PassageSplitter::isFence).count() % 2).as("fences are balanced").isZero();
    }

    @Test
    void aPassageThatOpensWithAFenceHasItsMarkerOnALineOfItsOwn() {
        KeptSource s = new KeptSource("2", "https://example.org", true, List.of("```\nls -la\n```", "Then look."), 9);
        assertThat(PromptWriter.reference(List.of(s))).isEqualTo("[2]\n```\nls -la\n```\n\n[2] Then look.");
    }

    @Test
    void fencedCodeIsContentForTheQualityMeasure() {
        PassageScorer scorer = new PassageScorer();
        Passage code = new Passage(0, 0, "```\nclient = Client(timeout=10)\npage = client.fetch(url)\n```");
        Passage menu = new Passage(0, 1, "Home\nNews\nSport\nWeather");
        assertThat(scorer.quality(code, true)).isGreaterThanOrEqualTo(BudgetPacker.NEIGHBOUR_QUALITY);
        assertThat(scorer.quality(menu, true)).isLessThan(RagPromptBuilder.MIN_QUALITY);
    }

    @Test
    void classifiesSourceNames() {
        SourceClassifier c = new SourceClassifier();
        assertThat(c.isWeb("https://www.example.com/news/article-1", "text")).isTrue();
        assertThat(c.isWeb("www.example.org", "text")).isTrue();
        assertThat(c.isWeb("example.org/a/b", "text")).isTrue();
        assertThat(c.isWeb("report.pdf", "text")).isFalse();
        assertThat(c.isWeb("https://example.com/files/report.pdf", "text")).isFalse();
        assertThat(c.isWeb("Quarterly notes", "A short paragraph of a document.")).isFalse();
        String page = ("Home\nNews\nSport\nSign in\nSubscribe\nMenu\nSearch\n").repeat(6)
                + "A paragraph of the article that is long enough to read as prose for the test.";
        assertThat(c.isWeb("", page)).isTrue();
    }

    // ------------------------------------------------------------------ selection

    @Test
    void removesNearDuplicatesAcrossSources() {
        String story = "The city council approved the new tram line on Tuesday. Construction will start in March "
                + "and the first trams should run in 2027, the council said, at a cost of 310 million euros.";
        String user = Fixtures.defaultTemplate(
                Fixtures.source("1", "https://news-a.example.com/tram", story)
                        + Fixtures.source("2", "https://news-b.example.com/tram",
                                story.replace("Tuesday", "Tuesday evening"))
                        + Fixtures.source("3", "https://blog.example.com/tram",
                                "Residents of the east side said the tram line would finally connect them to the centre."),
                "When will the new tram line open?");
        RagResult r = builder.build(input(4096, RagMessage.user(user)));
        assertThat(r.stats().duplicatesRemoved()).isGreaterThanOrEqualTo(1);
        long copies = r.sources().stream().flatMap(s -> s.passages().stream())
                .filter(p -> p.contains("first trams should run in 2027")).count();
        assertThat(copies).isEqualTo(1);
    }

    @Test
    void passageAnsweringTheQuestionWins() {
        RagResult r = web(2048);
        assertThat(r.sources()).isNotEmpty();
        assertThat(r.sources().get(0).id()).isEqualTo("1");
        assertThat(r.userText()).contains("$500").contains("$400");
        // the Vision Pro review is not about console prices: at most a sliver of it
        int engadget = r.sources().stream().filter(s -> s.id().equals("1")).mapToInt(KeptSource::tokens).sum();
        int others = r.sources().stream().filter(s -> !s.id().equals("1")).mapToInt(KeptSource::tokens).sum();
        assertThat(engadget).isGreaterThan(2 * others);
    }

    @ParameterizedTest
    @ValueSource(ints = {2048, 4096, 8192})
    void budgetIsRespected(int ctx) {
        RagInput in = new RagInput(List.of(RagMessage.system("You are a helpful assistant."),
                RagMessage.user("Tell me about consoles."), RagMessage.assistant("Sure, which one?"),
                RagMessage.user(Fixtures.read("web-user-message.txt"))), null, ctx, 1024, 300, QUARTER, TODAY,
                RagOptions.defaults().withMaxPassages(100).withRelativeRelevance(0).withNeighbourRings(3));
        RagResult r = builder.build(in);
        assertThat(r.stats().usedTokens()).isLessThanOrEqualTo(r.stats().budgetTokens());
        assertThat(r.stats().budgetTokens()).isLessThanOrEqualTo((int) (ctx * 0.6));
        int prompt = QUARTER.count(r.userText()) + QUARTER.count(r.systemText()) + 300 + 1024;
        assertThat(prompt).isLessThanOrEqualTo(ctx);
        int sum = r.sources().stream().mapToInt(KeptSource::tokens).sum();
        assertThat(sum).isEqualTo(r.stats().usedTokens());
    }

    @Test
    void biggerContextsGetMoreReferenceText() {
        RagOptions wide = RagOptions.defaults().withMaxPassages(100).withRelativeRelevance(0).withNeighbourRings(3);
        RagResult small = builder.build(input(2048, RagMessage.user(Fixtures.read("web-user-message.txt"))).withOptions(wide));
        RagResult large = builder.build(input(8192, RagMessage.user(Fixtures.read("web-user-message.txt"))).withOptions(wide));
        assertThat(large.stats().usedTokens()).isGreaterThan(small.stats().usedTokens());
    }

    @Test
    void noRoomMeansNoReferenceText() {
        RagInput in = new RagInput(List.of(RagMessage.user(Fixtures.read("web-user-message.txt"))), null, 2048, 1024,
                1000, QUARTER, TODAY, RagOptions.defaults());
        RagResult r = builder.build(in);
        assertThat(r.detected()).isTrue();
        assertThat(r.sources()).isEmpty();
        assertThat(r.userText()).isEqualTo(QUESTION);
    }

    @Test
    void citationIdsArePreserved() {
        String user = Fixtures.defaultTemplate(
                Fixtures.source("7", "https://a.example.com/mars", "The Mars rover landed in Jezero crater in February 2021.")
                        + Fixtures.source("9", "https://b.example.com/mars",
                                "Jezero crater once held a lake, which is why the rover was sent there to look for signs of life."),
                "Where did the Mars rover land and why there?");
        RagResult r = builder.build(input(4096, RagMessage.user(user)));
        assertThat(r.sources()).extracting(KeptSource::id).containsExactly("7", "9");
        assertThat(r.sources()).extracting(KeptSource::name)
                .containsExactly("https://a.example.com/mars", "https://b.example.com/mars");
        assertThat(r.userText()).contains("[7] The Mars rover landed", "[9] Jezero crater once held a lake")
                .contains("Cite the sources you use as [7], [9]");
    }

    @Test
    void saysSoWhenNothingRelevantSurvives() {
        String user = Fixtures.read("web-user-message.txt").replace(QUESTION, "What is the capital of Mongolia?");
        RagResult r = builder.build(input(4096, RagMessage.user(user)));
        assertThat(r.detected()).isTrue();
        assertThat(r.nothingRelevant()).isTrue();
        assertThat(r.sources()).isEmpty();
        assertThat(r.userText()).contains("found nothing relevant").endsWith("What is the capital of Mongolia?")
                .doesNotContain("[1]");
    }

    @Test
    void summaryRequestsKeepTheStartOfTheSources() {
        RagResult r = builder.build(input(4096, RagMessage.user(Fixtures.defaultTemplate(
                Fixtures.source("1", "https://www.engadget.com/xbox-one-x-review",
                        Fixtures.read("web-user-message.txt").split("<source id=\"1\"[^>]*>")[1].split("</source>")[0]),
                "Summarize this page"))));
        assertThat(r.nothingRelevant()).isFalse();
        assertThat(r.sources()).hasSize(1);
        assertThat(r.userText()).contains("Cover all the main points");
    }

    // ------------------------------------------------------------------ follow-ups

    private static final String PREVIOUS = "The Xbox One X costs $500 while the PS4 Pro launched at $400 [1]. "
            + "The Xbox One X has more RAM and a faster GPU.";

    private RagResult followUp(String question, String previous) {
        String user = Fixtures.read("web-user-message.txt").replace(QUESTION, question);
        return builder.build(input(4096, RagMessage.user(QUESTION), RagMessage.assistant(previous), RagMessage.user(user)));
    }

    @ParameterizedTest
    @ValueSource(strings = {"thanks!", "Thank you so much 🙏", "ok great", "merci beaucoup", "谢谢"})
    void acknowledgementsGetNoContext(String thanks) {
        RagResult r = followUp(thanks, PREVIOUS);
        assertThat(r.detected()).isTrue();
        assertThat(r.followUp()).isTrue();
        assertThat(r.sources()).isEmpty();
        assertThat(r.nothingRelevant()).isFalse();
        assertThat(r.userText()).isEqualTo(thanks);
    }

    @Test
    void tellMeMoreUsesResultsAboutThePreviousAnswer() {
        RagResult r = followUp("tell me more", PREVIOUS);
        assertThat(r.followUp()).isTrue();
        assertThat(r.sources()).isNotEmpty();
        assertThat(r.sources().get(0).id()).isEqualTo("1");
    }

    @Test
    void tellMeMoreIgnoresUnrelatedFreshResults() {
        RagResult r = followUp("tell me more", "Paris is the capital of France and has about two million inhabitants.");
        assertThat(r.followUp()).isTrue();
        assertThat(r.sources()).isEmpty();
        assertThat(r.nothingRelevant()).isFalse();
        assertThat(r.userText()).isEqualTo("tell me more");
    }

    @Test
    void questionsAboutThePreviousAnswerGetNoContext() {
        RagResult r = followUp("Can you translate that into German?", PREVIOUS);
        assertThat(r.followUp()).isTrue();
        assertThat(r.sources()).isEmpty();
        assertThat(r.userText()).isEqualTo("Can you translate that into German?");
    }

    @Test
    void firstQuestionWithoutPreviousAnswerIsNotAFollowUp() {
        RagResult r = web(4096);
        assertThat(r.followUp()).isFalse();
    }

    // ------------------------------------------------------------------ date and thinking

    @Test
    void injectsDateWhenTheQuestionIsAboutTime() {
        String user = Fixtures.read("web-user-message.txt").replace(QUESTION, "What is the latest price of the Xbox One X?");
        RagResult r = builder.build(input(4096, RagMessage.user(user)));
        assertThat(r.userText()).startsWith("Today is Sunday, 1 June 2025.");
    }

    @Test
    void injectsDateWhenTheTemplateMentionsDates() {
        String user = "Today's date is 2019-03-03. Use the context to answer.\n<context>\n"
                + Fixtures.source("1", "notes.txt", "The Xbox One X costs $500 and the PS4 Pro $400.")
                + "</context>\n\nQuery: How much does the Xbox One X cost?";
        RagResult r = builder.build(input(4096, RagMessage.user(user)));
        assertThat(r.userText()).startsWith("Today is Sunday, 1 June 2025.").doesNotContain("2019-03-03");
    }

    @Test
    void noDateWhenNotRelevantOrDisabled() {
        assertThat(web(4096).userText()).doesNotContain("Today is");
        String user = Fixtures.read("web-user-message.txt").replace(QUESTION, "What is the latest price of the Xbox One X?");
        RagResult r = builder.build(input(4096, RagMessage.user(user))
                .withOptions(RagOptions.defaults().withDateMode(RagOptions.DateMode.NEVER)));
        assertThat(r.userText()).doesNotContain("Today is");
        RagResult always = builder.build(input(4096, RagMessage.user(Fixtures.read("web-user-message.txt")))
                .withOptions(RagOptions.defaults().withDateMode(RagOptions.DateMode.ALWAYS)));
        assertThat(always.userText()).startsWith("Today is");
    }

    @Test
    void recommendsThinkingOffOnSmallContexts() {
        assertThat(web(4096).recommendThinkingOff()).isTrue();
        assertThat(web(8192).recommendThinkingOff()).isTrue();
        assertThat(web(32768).recommendThinkingOff()).isFalse();
        RagResult r = builder.build(input(4096, RagMessage.user(Fixtures.read("web-user-message.txt")))
                .withOptions(RagOptions.defaults().withThinkingOffMaxContext(2048)));
        assertThat(r.recommendThinkingOff()).isFalse();
    }

    @Test
    void foreignQuestionsAskForAnAnswerInTheirLanguage() {
        String user = Fixtures.read("web-user-message.txt").replace(QUESTION, "Combien coûte la Xbox One X par rapport à la PS4 Pro ?");
        RagResult r = builder.build(input(4096, RagMessage.user(user)));
        assertThat(r.userText()).contains("Reply in the language of the question.");
        assertThat(web(4096).userText()).doesNotContain("Reply in the language");
    }
}
