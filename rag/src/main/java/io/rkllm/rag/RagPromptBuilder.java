package io.rkllm.rag;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * Rewrites a chat request that carries retrieved context (Open WebUI web search or document
 * retrieval) into a compact prompt a 1.5-4B model with a 2-8k context answers well from.
 *
 * <p>Steps: detect the context and the question ({@link ContextDetector}); recognise conversational
 * follow-ups ({@link FollowUpDetector}); clean web pages ({@link WebTextCleaner}); split sources into
 * passages ({@link PassageSplitter}); score them for relevance and quality ({@link PassageScorer});
 * drop near-duplicates ({@link NearDuplicates}); pack the best into the token budget; write the
 * reading-comprehension prompt ({@link PromptWriter}). Stateless and thread-safe.
 */
public final class RagPromptBuilder {
    private final WebTextCleaner cleaner;
    private final ContextDetector detector = new ContextDetector();
    private final SourceClassifier classifier = new SourceClassifier();
    private final FollowUpDetector followUps = new FollowUpDetector();
    private final PassageScorer scorer = new PassageScorer();

    private static final Pattern TEMPORAL = Pattern.compile(
            "(?i)\\b(?:today|tonight|tomorrow|yesterday|now|currently|current|latest|recent|recently|this (?:year|month|week)"
            + "|last (?:year|month|week)|next (?:year|month|week)|upcoming|how old|how long ago|ago|date|deadline|schedule"
            + "|(?:19|20)\\d{2}|aujourd'hui|actuel\\w*|heute|aktuell\\w*|hoy|actual\\w*|hoje|atual\\w*|oggi|attual\\w*)\\b"
            + "|今天|现在|現在|最新|目前|今年|最近|今日|いま|本日");
    private static final Pattern NON_ENGLISH = Pattern.compile(
            "(?i)\\b(?:el|la|los|las|les|le|des|der|die|das|und|est|ist|que|qué|quoi|qui|não|nao|é|pas|nicht|wie|como|cómo"
            + "|comment|pourquoi|porque|por|para|pour|dans|une|uma|um|ein|eine|il|lo|gli|che|di|del|della)\\b");
    private static final Pattern ENGLISH = Pattern.compile(
            "(?i)\\b(?:the|is|are|what|how|why|who|when|where|which|does|do|can|of|to|and|in|a|an|you|i|my|it)\\b");

    /** Passages of lower quality (leftover widgets, score boxes, lists of links) are never used. */
    static final double MIN_QUALITY = 0.2;

    public RagPromptBuilder() {
        this(new WebTextCleaner());
    }

    public RagPromptBuilder(WebTextCleaner cleaner) {
        this.cleaner = cleaner;
    }

    public RagResult build(RagInput in) {
        RagOptions o = in.options();
        List<RagMessage> messages = in.messages();
        int sysIdx = -1;
        int userIdx = -1;
        for (int i = 0; i < messages.size(); i++) {
            if (sysIdx < 0 && messages.get(i).is("system")) {
                sysIdx = i;
            }
            if (messages.get(i).is("user")) {
                userIdx = i;
            }
        }
        String system = sysIdx >= 0 ? messages.get(sysIdx).text() : null;
        String user = userIdx >= 0 ? messages.get(userIdx).text() : "";
        if (!o.enabled()) {
            return RagResult.untouched(user, system);
        }
        Optional<ContextDetector.Found> inUser = detector.find(user);
        Optional<ContextDetector.Found> inSystem = inUser.isPresent() ? Optional.empty() : detector.find(system);
        if (inUser.isEmpty() && inSystem.isEmpty()) {
            return RagResult.untouched(user, system);
        }
        ContextDetector.Found found = inUser.orElseGet(inSystem::get);
        String question;
        String newSystem = system;
        if (inUser.isPresent()) {
            question = found.query() != null && !found.query().isBlank() ? found.query() : found.remaining();
        } else {
            question = user.strip();
            newSystem = found.remaining();
            if (question.isEmpty() && found.query() != null) {
                question = found.query();
            }
        }
        String previous = in.previousAnswer();
        if (previous == null) {
            for (int i = userIdx - 1; i >= 0; i--) {
                if (messages.get(i).is("assistant") && !messages.get(i).text().isBlank()) {
                    previous = messages.get(i).text();
                    break;
                }
                if (messages.get(i).is("user")) {
                    break;
                }
            }
        }
        boolean thinkingOff = in.contextLength() <= o.thinkingOffMaxContext();
        boolean wantDate = o.dateMode() == RagOptions.DateMode.ALWAYS
                || (o.dateMode() == RagOptions.DateMode.WHEN_RELEVANT
                    && (found.mentionsDate() || TEMPORAL.matcher(question).find()));
        String date = wantDate ? PromptWriter.dateLine(in.today()) : "";

        FollowUpDetector.Kind kind = o.detectFollowUps() ? followUps.classify(question, previous)
                : FollowUpDetector.Kind.NONE;
        if (kind == FollowUpDetector.Kind.ACKNOWLEDGEMENT || kind == FollowUpDetector.Kind.ABOUT_ANSWER) {
            String text = kind == FollowUpDetector.Kind.ACKNOWLEDGEMENT ? question.strip() : PromptWriter.plain(date, question);
            return new RagResult(true, text, newSystem, question, List.of(), false, true, thinkingOff,
                    new RagStats(found.contextChars(), 0, 0, 0, 0, 0, 0));
        }

        // sources -> passages (Open WebUI sends one block per chunk: chunks of one file share an id)
        List<RetrievedSource> sources = new ArrayList<>();
        for (RetrievedSource s : mergeById(found.sources())) {
            boolean web = classifier.isWeb(s.name(), s.text());
            String text = web && o.cleanWeb() ? cleaner.clean(s.text()) : normaliseDocument(s.text());
            sources.add(new RetrievedSource(s.id(), s.name(), text, web));
        }
        PassageSplitter splitter = new PassageSplitter(o.minPassageChars(), o.maxPassageChars());
        List<Passage> passages = new ArrayList<>();
        Map<Integer, Integer> perSource = new HashMap<>();
        for (int i = 0; i < sources.size(); i++) {
            int k = 0;
            for (String p : splitter.split(sources.get(i).text())) {
                passages.add(new Passage(i, k++, p));
            }
            perSource.put(i, k);
        }
        boolean anyWeb = sources.stream().anyMatch(RetrievedSource::web);

        List<String> terms = new ArrayList<>(Terms.query(question));
        List<String> questionTerms = List.copyOf(terms);
        if (kind == FollowUpDetector.Kind.CONTINUATION && previous != null) {
            terms.addAll(topTerms(previous, 12));
        }
        boolean summary = kind == FollowUpDetector.Kind.NONE && PromptWriter.isSummaryRequest(question);
        boolean hasTerms = scorer.relevance(passages, terms);
        double w = o.relevanceWeight();
        for (Passage p : passages) {
            boolean web = sources.get(p.source).web();
            p.quality = scorer.quality(p, web);
            double position = 1.0 - p.order / (double) Math.max(1, perSource.get(p.source));
            double rank = 1.0 - p.source / (double) Math.max(1, sources.size());
            if (hasTerms && !summary) {
                p.score = w * p.relevance + (1 - w) * p.quality + 0.02 * rank;
            } else {
                p.score = 0.6 * p.quality + 0.3 * position + 0.1 * rank;
            }
        }
        Set<Passage> duplicates = new NearDuplicates(o.duplicateSimilarity()).find(passages);
        double bestRelevance = 0;
        for (Passage p : passages) {
            if (!duplicates.contains(p)) {
                bestRelevance = Math.max(bestRelevance, p.relevance);
            }
        }
        List<Passage> candidates = new ArrayList<>();
        for (Passage p : passages) {
            if (duplicates.contains(p) || p.score < o.minPassageScore() || p.quality < MIN_QUALITY) {
                continue;
            }
            if (hasTerms && !summary && sources.get(p.source).web() && p.relevance <= 0) {
                continue; // a web passage that shares no word with the question is noise
            }
            candidates.add(p);
        }
        int inputChars = found.contextChars();
        boolean crossScript = crossScript(question, sources);
        if (kind == FollowUpDetector.Kind.CONTINUATION || (hasTerms && !summary && !crossScript)) {
            // documents were retrieved by meaning (and Open WebUI's own relevance threshold): half the bar
            double floor = anyWeb ? o.minRelevance() : o.minRelevance() / 2;
            if (bestRelevance < floor || candidates.isEmpty()) {
                boolean aboutPrevious = kind == FollowUpDetector.Kind.CONTINUATION
                        || (previous != null && PassageScorer.overlap(questionTerms, previous) >= 0.3);
                RagStats stats = new RagStats(inputChars, 0, passages.size(), duplicates.size(), 0, 0, 0);
                if (aboutPrevious && previous != null) {
                    return new RagResult(true, PromptWriter.plain(date, question), newSystem, question, List.of(),
                            false, true, thinkingOff, stats);
                }
                return new RagResult(true, PromptWriter.nothingRelevant(date, anyWeb, question), newSystem, question,
                        List.of(), true, kind != FollowUpDetector.Kind.NONE, thinkingOff, stats);
            }
        }
        if (candidates.isEmpty()) {
            RagStats stats = new RagStats(inputChars, 0, passages.size(), duplicates.size(), 0, 0, 0);
            return new RagResult(true, PromptWriter.nothingRelevant(date, anyWeb, question), newSystem, question,
                    List.of(), true, kind != FollowUpDetector.Kind.NONE, thinkingOff, stats);
        }

        // budget
        TokenCounter tok = in.tokens();
        boolean foreign = !looksEnglish(question);
        String frame = (date.isEmpty() ? "" : date + "\n\n") + PromptWriter.according(question) + "\n"
                + PromptWriter.instruction(List.of(new KeptSource("10", "", true, List.of(), 0),
                        new KeptSource("11", "", true, List.of(), 0)), summary, foreign);
        int room = in.contextLength() - in.reservedOutput() - in.conversationTokens() - o.overheadTokens()
                - tok.count(frame) - (newSystem == null ? 0 : tok.count(newSystem));
        int budget = Math.min(room, (int) Math.floor(in.contextLength() * o.budgetShare()));
        if (budget < o.minBudgetTokens()) {
            RagStats stats = new RagStats(inputChars, 0, passages.size(), duplicates.size(), 0, Math.max(0, budget), 0);
            return new RagResult(true, PromptWriter.plain(date, question), newSystem, question, List.of(), false,
                    kind != FollowUpDetector.Kind.NONE, thinkingOff, stats);
        }
        // weakly matching passages are noise to a small model; documents were retrieved by meaning, so
        // their wording gets half the bar, and short sources (snippets, single chunks) a third of it
        if (hasTerms && !summary) {
            double bar = o.relativeRelevance() * bestRelevance;
            candidates.removeIf(p -> {
                double b = sources.get(p.source).web() ? bar : bar / 2;
                if (perSource.get(p.source) <= 2) {
                    b = Math.min(b, bar / 3);
                }
                return p.relevance < b;
            });
        }
        BudgetPacker.Packed packed = new BudgetPacker(tok, budget, o.maxPassages()).pack(candidates, sources,
                hasTerms && !summary ? o.neighbourRings() : 0, passages, duplicates, bestRelevance);
        List<Passage> kept = new ArrayList<>(packed.passages());
        int used = packed.used();
        if (kept.isEmpty()) {
            RagStats stats = new RagStats(inputChars, 0, passages.size(), duplicates.size(), 0, budget, 0);
            return new RagResult(true, PromptWriter.plain(date, question), newSystem, question, List.of(), false,
                    kind != FollowUpDetector.Kind.NONE, thinkingOff, stats);
        }
        kept.sort(Comparator.comparingInt((Passage p) -> p.source).thenComparingInt(p -> p.order));
        Map<Integer, List<Passage>> bySource = new LinkedHashMap<>();
        for (Passage p : kept) {
            bySource.computeIfAbsent(p.source, k -> new ArrayList<>()).add(p);
        }
        List<KeptSource> keptSources = new ArrayList<>();
        int outChars = 0;
        for (Map.Entry<Integer, List<Passage>> e : bySource.entrySet()) {
            RetrievedSource s = sources.get(e.getKey());
            List<String> texts = new ArrayList<>();
            int tokens = 0;
            for (Passage p : e.getValue()) {
                texts.add(p.text);
                tokens += p.tokens;
                outChars += p.text.length();
            }
            keptSources.add(new KeptSource(s.id(), s.name(), s.web(), texts, tokens));
        }
        RagStats stats = new RagStats(inputChars, outChars, passages.size(), duplicates.size(), kept.size(), budget, used);
        if (inSystem.isPresent() && !o.contextInUserMessage()) {
            String reference = PromptWriter.systemReference(date, keptSources, summary, foreign);
            String sys = newSystem == null || newSystem.isBlank() ? reference : newSystem.strip() + "\n\n" + reference;
            return new RagResult(true, question.strip(), sys, question, keptSources, false,
                    kind != FollowUpDetector.Kind.NONE, thinkingOff, stats);
        }
        String prompt = PromptWriter.withContext(date, keptSources, question, summary, foreign);
        return new RagResult(true, prompt, newSystem, question, keptSources, false,
                kind != FollowUpDetector.Kind.NONE, thinkingOff, stats);
    }

    /** Joins the blocks that share an id and a name, in order of first appearance. */
    static List<RetrievedSource> mergeById(List<RetrievedSource> blocks) {
        Map<String, StringBuilder> texts = new LinkedHashMap<>();
        Map<String, RetrievedSource> first = new LinkedHashMap<>();
        int anonymous = 0;
        for (RetrievedSource b : blocks) {
            String key = b.id().isEmpty() ? "\u0000" + anonymous++ : b.id() + "\u0000" + b.name();
            first.putIfAbsent(key, b);
            StringBuilder t = texts.computeIfAbsent(key, k -> new StringBuilder());
            String next = b.text();
            int overlap = t.isEmpty() ? 0 : overlap(t, next);
            if (overlap > 0) {
                t.append(next.substring(overlap)); // consecutive chunks of one file overlap (Open WebUI: 100 chars)
            } else {
                if (!t.isEmpty()) {
                    t.append("\n\n");
                }
                t.append(next);
            }
        }
        List<RetrievedSource> out = new ArrayList<>();
        for (Map.Entry<String, RetrievedSource> e : first.entrySet()) {
            RetrievedSource b = e.getValue();
            out.add(new RetrievedSource(b.id(), b.name(), texts.get(e.getKey()).toString(), b.web()));
        }
        return out;
    }

    /** Length of the longest prefix of {@code next} (20..400 chars) that ends {@code text}, or 0. */
    static int overlap(CharSequence text, String next) {
        int max = Math.min(400, Math.min(text.length(), next.length()));
        for (int k = max; k >= 20; k--) {
            boolean same = true;
            for (int i = 0; i < k && same; i++) {
                same = text.charAt(text.length() - k + i) == next.charAt(i);
            }
            if (same) {
                return k;
            }
        }
        return 0;
    }

    /** Document chunks are kept as written, with runs of blank lines and spaces collapsed. */
    static String normaliseDocument(String text) {
        return text.replace("\r\n", "\n").replaceAll("[ \\t\\u00A0]+", " ").replaceAll("(?m)^ +| +$", "")
                .replaceAll("\n{3,}", "\n\n").strip();
    }

    /** The most frequent content terms of a text (the topic of the previous answer). */
    static List<String> topTerms(String text, int n) {
        Map<String, Integer> counts = new HashMap<>();
        for (String t : Terms.query(text)) {
            counts.merge(t, 1, Integer::sum);
        }
        return counts.entrySet().stream()
                .sorted(Map.Entry.<String, Integer>comparingByValue().reversed().thenComparing(Map.Entry.comparingByKey()))
                .limit(n).map(Map.Entry::getKey).toList();
    }

    /** The question is in CJK script and the sources are not, or the other way round. */
    private static boolean crossScript(String question, List<RetrievedSource> sources) {
        int qc = Scripts.countCjk(question);
        boolean qCjk = qc * 3 > question.strip().length();
        long chars = 0;
        long cjk = 0;
        for (RetrievedSource s : sources) {
            chars += s.text().length();
            cjk += Scripts.countCjk(s.text());
        }
        boolean sCjk = chars > 0 && cjk * 3 > chars;
        return qCjk != sCjk;
    }

    static boolean looksEnglish(String q) {
        for (int i = 0; i < q.length(); ) {
            int cp = q.codePointAt(i);
            i += Character.charCount(cp);
            if (Character.isLetter(cp) && Character.UnicodeScript.of(cp) != Character.UnicodeScript.LATIN) {
                return false;
            }
        }
        return ENGLISH.matcher(q).find() || !NON_ENGLISH.matcher(q).find();
    }

}
