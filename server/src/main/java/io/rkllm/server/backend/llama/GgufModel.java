package io.rkllm.server.backend.llama;

import io.rkllm.llama.Batch;
import io.rkllm.llama.ContextParams;
import io.rkllm.llama.DecodeStatus;
import io.rkllm.llama.LlamaContext;
import io.rkllm.llama.LlamaException;
import io.rkllm.llama.LlamaModel;
import io.rkllm.llama.LlamaRuntime;
import io.rkllm.llama.ModelParams;
import io.rkllm.llama.Pooling;
import io.rkllm.llama.SamplingParams;
import io.rkllm.server.template.JinjaChatTemplate;
import io.rkllm.server.engine.contract.BackendModel;
import io.rkllm.server.engine.contract.Cancellation;
import io.rkllm.server.engine.contract.ChatPrompt;
import io.rkllm.server.engine.contract.EmbeddingEnd;
import io.rkllm.server.engine.contract.EncoderInfo;
import io.rkllm.server.engine.contract.GenerationEvent;
import io.rkllm.server.engine.contract.GenerationStats;
import io.rkllm.server.engine.contract.LoadContext;
import io.rkllm.server.engine.contract.ModelLoad;
import io.rkllm.server.engine.contract.ModelTokenizer;
import io.rkllm.server.engine.contract.PromptTemplate;
import io.rkllm.server.engine.contract.Sampling;
import io.rkllm.server.engine.contract.TokenSink;
import io.rkllm.server.engine.contract.cache.CacheContents;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One loaded GGUF model. A chat model has one context with {@code engines.llama.parallel} sequences (and a spare one
 * for background tasks), run by its {@link DecodeLoop}: {@link #generate} may be called from several threads at once,
 * each call one sequence of the same batched decode, its output handed to its caller's sink on the caller's thread.
 * An embedding model has an embedding context, used by the worker's thread: each text in one decode, every token's
 * row given to the pipeline's pooling (build 4916 cannot mean-pool a decoder model natively without aborting).
 */
final class GgufModel implements BackendModel {
    private static final Logger LOG = LoggerFactory.getLogger(GgufModel.class);

    private final String id;
    private final PromptText text;
    private final Sampling defaults;
    private final DecodeLoop loop;
    private final LlamaModel embeddingModel;
    private final LlamaContext embeddingContext;
    private final int parallel;
    private final MarkerTokens markers;
    private final SharedTokenizer tokenizer;
    private Optional<PromptTemplate> framing = Optional.empty();

    private GgufModel(String id, PromptText text, Sampling defaults, DecodeLoop loop, LlamaModel embeddingModel,
                      LlamaContext embeddingContext, int parallel, MarkerTokens markers, LlamaModel model) {
        this.id = id;
        this.tokenizer = new SharedTokenizer(id, model);
        this.text = text;
        this.defaults = defaults;
        this.loop = loop;
        this.embeddingModel = embeddingModel;
        this.embeddingContext = embeddingContext;
        this.parallel = parallel;
        this.markers = markers;
    }

    /** Loads the model (mapped) and its context under the engine's memory check, on the worker's thread. */
    static GgufModel load(LlamaRuntime runtime, ModelLoad load, LoadContext context, LlamaSettings settings,
                          Sampling defaults) {
        return context.loadSlot(() -> open(runtime, load, settings, defaults));
    }

    private static GgufModel open(LlamaRuntime runtime, ModelLoad load, LlamaSettings settings,
                                  Sampling defaults) {
        LlamaModel model = loadModel(runtime, settings.modelParams(load.file()));
        try {
            if (load.embedding()) {
                // a reranker's score needs llama.cpp's own rank pooling (its classification head); vectors are
                // pooled by the pipeline from every token's row
                Pooling pooling = ranks(model) ? Pooling.RANK : Pooling.NONE;
                LlamaContext context = model.newContext(ContextParams.embedding(load.contextLength(), 1,
                        settings.threads(), pooling));
                return new GgufModel(load.id(), new PromptText(Optional.empty(), ""), defaults, null, model, context, 1,
                        new MarkerTokens(model), model);
            }
            int sequences = settings.parallel();
            boolean ownCaches = ownCaches(load, settings);
            LlamaContext context = model.newContext(settings.chatContext(load.contextLength(),
                    ownCaches));
            PromptText text = new PromptText(template(load.id(), model, load.chatTemplate()), endOfTurn(model),
                    model.vocabulary().fillInTheMiddle().map(t -> PromptText.FimTexts.of(t, id -> piece(model, id))));
            LOG.info("model {}: llama.cpp context of {} cells {} {} conversations at once (and one for background"
                            + " tasks), each of up to {} tokens, {} threads, {}; {}", load.id(), context.contextLength(),
                    ownCaches ? "in a KV cache each for" : "shared by", sequences, load.contextLength(),
                    settings.threads(), text.ownTemplate() ? "its own chat template" : "the family's chat template",
                    settings.savedPromptBytes() > 0 && context.savesSequences() ? "up to "
                            + (settings.savedPromptBytes() >> 20) + " MB of conversations' states kept in memory"
                            : "no conversation's state kept in memory");
            return new GgufModel(load.id(), text, defaults,
                    new DecodeLoop(load.id(), model, context, sequences, load.contextLength(),
                            settings.savedPromptBytes()), null, null,
                    sequences, new MarkerTokens(model), model);
        } catch (RuntimeException | Error e) {
            model.close();
            throw e;
        }
    }

    /**
     * Whether each conversation gets a KV cache of its own: decided from the file's header as discovery decided it
     * when it counted the model's memory ({@link GgufFacts#perConversation}).
     */
    private static boolean ownCaches(ModelLoad load, LlamaSettings settings) {
        if (settings.layout().mode() != KvLayout.Mode.AUTO) {
            return settings.layout().mode() == KvLayout.Mode.PER_CONVERSATION;
        }
        try {
            List<Path> later = SplitParts.of(load.file()).map(SplitParts::later).orElse(List.of());
            GgufFacts facts = GgufMetadata.read(load.file(), later, settings.parallel(), settings.layout());
            return facts.perConversation(java.nio.file.Files.size(load.file()) + facts.otherFilesBytes(),
                    load.contextLength());
        } catch (GgufMetadata.Unreadable | java.io.IOException e) {
            return false;
        }
    }

    /**
     * Loads the file; a model whose architecture the library does not know is the commonest failure with the
     * bundled build (March 2025, before Qwen3 or Llama 4), so its message says what to do.
     */
    private static LlamaModel loadModel(LlamaRuntime runtime, ModelParams params) {
        try {
            return runtime.load(params);
        } catch (LlamaException e) {
            String message = String.valueOf(e.getMessage());
            if (!message.contains("unknown model architecture")) {
                throw e;
            }
            String build = runtime.info().identity().buildNumber().stream().mapToObj(n -> " build " + n)
                    .findFirst().orElse("");
            throw new LlamaException(message + ". This llama.cpp (" + runtime.info().library().path() + build
                    + ") is older than the model's architecture: point engines.llama.library at a newer build"
                    + " (docs/llama-engine.md, 'Which library')", e);
        }
    }

    /** Whether the model's header asks for rank pooling ({@code <arch>.pooling_type} 4): a reranker. */
    static boolean ranks(LlamaModel model) {
        return model.metadata("general.architecture").flatMap(arch -> model.metadata(arch + ".pooling_type"))
                .map(String::strip).filter("4"::equals).isPresent();
    }

    /** The model's own Jinja template, when it has one that renders. */
    static Optional<JinjaChatTemplate> template(String id, LlamaModel model) {
        return template(id, model, Optional.empty());
    }

    /** The model's own Jinja template ({@code beside} it, else in its file), when it has one that renders. */
    static Optional<JinjaChatTemplate> template(String id, LlamaModel model, Optional<String> beside) {
        Optional<String> source = beside.or(model::chatTemplate).filter(t -> !t.isBlank());
        if (source.isEmpty()) {
            return Optional.empty();
        }
        String bos = model.bos() >= 0 ? piece(model, model.bos()) : "";
        String eos = model.eos() >= 0 ? piece(model, model.eos()) : "";
        List<String> problems = new ArrayList<>();
        Optional<JinjaChatTemplate> template = JinjaChatTemplate.tryOf(source.get(), bos, eos, model.addsBos(),
                problems);
        if (template.isEmpty()) {
            LOG.warn("model {}: its chat template does not render here ({}); the family's template (ChatML for a"
                    + " family the server does not know) is used instead",
                    id, String.join("; ", problems));
        }
        return template;
    }

    /** The text of the token the model ends an answer with: its end of turn, else its end of text. */
    static String endOfTurn(LlamaModel model) {
        int token = model.eot() >= 0 ? model.eot() : model.eos();
        return token >= 0 ? piece(model, token) : "";
    }

    private static String piece(LlamaModel model, int token) {
        return new String(model.tokenToPiece(token, true), StandardCharsets.UTF_8);
    }

    /** The conversation as the model reads it: its chat template applied (a task's text as one user turn). */
    @Override
    public Optional<String> promptText(ChatPrompt prompt) {
        return loop == null ? Optional.empty() : Optional.of(text.render(prompt));
    }

    @Override
    public Optional<ModelTokenizer> tokenizer() {
        return Optional.of(tokenizer);
    }

    /** How many generations it runs at once: its sequences, each a conversation of the one batched decode. */
    @Override
    public int parallelGenerations() {
        return parallel;
    }

    @Override
    public GenerationEvent.End generate(ChatPrompt prompt, int maxTokens, TokenSink sink, Cancellation cancellation) {
        if (loop == null) {
            return GenerationEvent.failed("model " + id + " is an embedding model: it does not generate text");
        }
        String rendered;
        try {
            prompt = InfillCut.fit(prompt, loop.model());
            rendered = text.render(prompt);
        } catch (JinjaChatTemplate.RefusedConversation e) {
            return GenerationEvent.refused(e.getMessage());
        } catch (PromptText.NoFillInTheMiddle e) {
            return GenerationEvent.invalid("suffix", e.getMessage());
        } catch (RuntimeException e) {
            LOG.warn("model {}: rendering the prompt failed: {}", id, e.getMessage());
            return GenerationEvent.failed(e.getMessage());
        }
        SamplingParams sampling;
        try {
            sampling = LlamaSampling.of(prompt.settings().sampling().orElse(defaults), loop.model(),
                    prompt.settings().contextLength());
        } catch (TokenBiases.Refused e) {
            return GenerationEvent.invalid("logit_bias", e.getMessage());
        }
        SubmittedGeneration request = new SubmittedGeneration(prompt, rendered, prompt.task().isPresent(), sampling,
                grammar(prompt), maxTokens, markers.tokens(prompt.settings().markers()), sink);
        // bound before it is queued: a cancel that comes as soon as the loop has the request is one it sees
        try (Cancellation.Binding bound = cancellation.onCancel(() -> loop.cancel(request))) {
            loop.submit(request);
            while (true) {
                switch (request.events().take()) {
                    case SubmittedGeneration.Event.Text t -> sink.text(t.text(), t.tokens());
                    case SubmittedGeneration.Event.End end -> {
                        return end.end();
                    }
                }
            }
        } catch (InterruptedException e) {
            loop.cancel(request);
            Thread.currentThread().interrupt();
            return GenerationEvent.failed("interrupted");
        }
    }

    /** The grammar of the answer's shape, when the request asks for one and the grammar can express it. */
    private Optional<AnswerGrammar> grammar(ChatPrompt prompt) {
        return prompt.settings().answerShape().flatMap(shape -> switch (AnswerGrammar.of(shape)) {
            case AnswerGrammar.Outcome.Made made -> Optional.of(made.grammar());
            case AnswerGrammar.Outcome.Unsupported unsupported -> {
                LOG.info("model {}: the answer is not constrained by a grammar ({}); it is checked once written",
                        id, unsupported.why());
                yield Optional.empty();
            }
        });
    }

    @Override
    public CacheContents held() {
        return loop == null ? CacheContents.NOTHING : loop.slots().held();
    }

    /** The decode loop of a chat model (tests watch and hold it). */
    DecodeLoop loop() {
        return loop;
    }

    @Override
    public void readyForEmbeddings(Optional<PromptTemplate> template) {
        framing = template;
    }

    /** One text in one decode on an empty cache; every token's row (the pipeline pools them). */
    @Override
    public EmbeddingEnd embed(String input, Cancellation cancellation) {
        if (embeddingContext == null) {
            return new EmbeddingEnd.Failed("model " + id + " is a chat model: it makes no embeddings");
        }
        String framed = framing.map(t -> t.systemPrompt() + t.promptPrefix() + input + t.promptPostfix())
                .orElse(input);
        int[] tokens = embeddingModel.tokenize(framed, true, true);
        if (tokens.length == 0) {
            return new EmbeddingEnd.Failed("the text is empty");
        }
        if (tokens.length > embeddingContext.batchSize()) {
            return new EmbeddingEnd.TooLong("input", "it is " + tokens.length + " tokens long; model " + id
                    + " takes at most " + embeddingContext.batchSize());
        }
        return decodeAlone(tokens, cancellation, "the text", "embedding", () -> {
            List<float[]> rows = new ArrayList<>(tokens.length);
            for (int i = 0; i < tokens.length; i++) {
                rows.add(embeddingContext.embedding(i));
            }
            return rows;
        });
    }

    /**
     * A reranker's score of one document: the query and the document in one sequence as llama-server frames the
     * pair ({@link LlamaModel#rerankPair}), read through the model's classification head (rank pooling).
     */
    @Override
    public EmbeddingEnd rank(String query, String document, Cancellation cancellation) {
        if (embeddingContext == null || embeddingContext.pooling() != Pooling.RANK) {
            return new EmbeddingEnd.Failed("model " + id + " is not a reranker");
        }
        // a rerank request cuts long documents: by the model's own count here, as the pipeline's is an estimate
        int room = embeddingContext.batchSize();
        int[] tokens = embeddingModel.rerankPair(query, document, room);
        if (tokens.length > room) {
            return new EmbeddingEnd.TooLong("query", "the query is " + (tokens.length - 1) + " tokens with its "
                    + "markers, and model " + id + " reads at most " + room + " of query and document together");
        }
        return decodeAlone(tokens, cancellation, "the pair", "ranking",
                () -> List.of(new float[] {embeddingContext.sequenceEmbedding(0)[0]}));
    }

    /**
     * Decodes {@code tokens} as the one sequence of the empty embedding context, every token an output, and reads
     * the result's rows; the context is emptied again afterwards, whatever happens.
     *
     * @param what what the tokens are, for the message when llama.cpp has no room for them
     * @param task what the run does, for the log
     */
    private EmbeddingEnd decodeAlone(int[] tokens, Cancellation cancellation, String what, String task,
                                    Supplier<List<float[]>> read) {
        long start = System.nanoTime();
        embeddingContext.kv().clear();
        try (Batch batch = new Batch(tokens.length, 1)) {
            for (int i = 0; i < tokens.length; i++) {
                batch.add(tokens[i], i, 0, true);
            }
            DecodeStatus status = embeddingContext.decode(batch, cancellation::isCancelled);
            if (status == DecodeStatus.ABORTED) {
                return new EmbeddingEnd.Aborted();
            }
            if (status != DecodeStatus.OK) {
                return new EmbeddingEnd.Failed("llama.cpp had no room for " + what + " (" + status + ")");
            }
            List<float[]> rows = read.get();
            return new EmbeddingEnd.Rows(rows.getFirst().length, rows, new GenerationStats((System.nanoTime() - start) / 1e6,
                    tokens.length, 0, 0));
        } catch (RuntimeException e) {
            LOG.warn("model {}: {} failed: {}", id, task, e.toString());
            return new EmbeddingEnd.Failed(e.getMessage());
        } finally {
            embeddingContext.kv().clear();
        }
    }

    @Override
    public int loadedSlots() {
        return 1;
    }

    @Override
    public Optional<EncoderInfo> encoder() {
        return Optional.empty();
    }

    @Override
    public void close() {
        if (loop != null) {
            loop.close();
        }
        if (embeddingContext != null) {
            embeddingContext.close();
            embeddingModel.close();
        }
    }
}
