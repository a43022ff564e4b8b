package io.rkllm.server.backend.rkllm;

import io.rkllm.ffm.Abi;
import io.rkllm.ffm.HiddenLayer;
import io.rkllm.ffm.ImageInput;
import io.rkllm.ffm.Model;
import io.rkllm.ffm.ModelParams;
import io.rkllm.ffm.PerfStats;
import io.rkllm.ffm.RkllmRuntime;
import io.rkllm.ffm.RunControl;
import io.rkllm.ffm.RunInput;
import io.rkllm.ffm.TokenEvent;
import io.rkllm.ffm.rknn.RknnRuntime;
import io.rkllm.server.engine.contract.BackendModel;
import io.rkllm.server.engine.contract.Cancellation;
import io.rkllm.server.engine.contract.ChatPrompt;
import io.rkllm.server.engine.contract.EmbeddingEnd;
import io.rkllm.server.engine.contract.EncoderInfo;
import io.rkllm.server.engine.contract.GenerationEvent;
import io.rkllm.server.engine.contract.GenerationStats;
import io.rkllm.server.engine.contract.LoadContext;
import io.rkllm.server.engine.contract.ModelLoad;
import io.rkllm.server.engine.contract.PromptTemplate;
import io.rkllm.server.engine.contract.StopReason;
import io.rkllm.server.engine.contract.TokenSink;
import io.rkllm.server.engine.contract.VisionLoad;
import io.rkllm.server.engine.contract.cache.CacheContents;
import java.time.Duration;
import java.util.Optional;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One loaded {@code .rkllm} model on its worker thread: its slots (handles, each with its own KV cache) and what
 * they hold ({@link ConversationCache}), a vision model's image step, and its end-of-turn watch (runtime 1.3's EOS
 * fault). A run: the cache policy prepares a slot, a multimodal run's pictures become embeddings, {@code rkllm_run}
 * streams its text (shared with other models' runs on the NPU, never beside an encoder run), and what the slot
 * holds afterwards is recorded.
 */
final class RkllmModel implements BackendModel {
    private static final Logger LOG = LoggerFactory.getLogger(RkllmModel.class);

    private final String id;
    private final Slots slots;
    private final ImageStep vision;
    private final EosWatch eos;
    private final NpuLock npu;
    private final ConversationCache cache;

    private RkllmModel(String id, Slots slots, ImageStep vision, EosWatch eos, NpuLock npu, ConversationCache cache) {
        this.id = id;
        this.slots = slots;
        this.cache = cache;
        this.vision = vision;
        this.eos = eos;
        this.npu = npu;
    }

    /**
     * The first slot ({@code rkllm_init}), then a vision model's encoder ({@code rknn_init}, after the first slot
     * as Rockchip's demo does); a vision model without its encoder is broken, so its failure fails the whole load.
     */
    static RkllmModel load(RkllmRuntime runtime, Supplier<RknnRuntime> rknn, ModelLoad load, LoadContext context,
                           NpuLock npu, EosWatch eos, ConversationCache cache, String encoderCores) {
        Slots slots = new Slots(load.id(), load.slots(), () -> context.loadSlot(
                () -> runtime.load(NativeTypes.params(runtime.defaultParams(), load))));
        ImageStep vision = null;
        if (load.vision().isPresent()) {
            try {
                vision = imageStep(rknn, load, context, npu, encoderCores);
            } catch (RuntimeException | Error e) {
                slots.destroyAll();
                throw e;
            }
        }
        return new RkllmModel(load.id(), slots, vision, eos, npu, cache);
    }

    private static ImageStep imageStep(Supplier<RknnRuntime> rknn, ModelLoad load, LoadContext context, NpuLock npu,
                                       String encoderCores) {
        VisionLoad spec = load.vision().orElseThrow();
        long t0 = System.nanoTime();
        ImageEncoding encoder = context.loadEncoder(() -> FfmEncoder.open(rknn.get(), spec, encoderCores));
        EncoderInfo info = encoder.info();
        LOG.info("image encoder of model {} loaded in {} ms: {}x{} pictures, {} tokens of {} floats each",
                load.id(), Duration.ofNanos(System.nanoTime() - t0).toMillis(), info.width(), info.height(),
                info.imageTokens(), info.embeddingWidth());
        return new ImageStep(load.id(), encoder, context.pictures(), npu, context.encoderListener());
    }

    @Override
    public int loadedSlots() {
        return slots.loaded();
    }

    @Override
    public Optional<EncoderInfo> encoder() {
        return Optional.ofNullable(vision).map(ImageStep::encoder);
    }

    @Override
    public CacheContents held() {
        return cache.held();
    }

    @Override
    public GenerationEvent.End generate(ChatPrompt prompt, int maxTokens, TokenSink out, Cancellation cancellation) {
        ConversationCache.Planned plan;
        Model model;
        try {
            plan = plan(prompt);
            model = slots.get(plan.slot());
        } catch (RuntimeException e) {
            LOG.warn("model {}: preparing the run failed: {}", id, e.toString());
            return GenerationEvent.failed("preparing the run failed: " + e.getMessage());
        }
        RunInput input = NativeTypes.input(plan.request(), model.params().sampling(),
                model.abi().perRunSampling() ? maxTokens : 0);
        Optional<ImageInput> images = Optional.empty();
        boolean cancelledWhileEncoding = false;
        if (!plan.request().images().isEmpty()) {
            ImageStep.Result result = vision == null ? new ImageStep.Result.Failed("model " + id
                    + " has no image encoder") : vision.embed(plan.request().images(), cancellation::isCancelled);
            switch (result) {
                case ImageStep.Result.Ready ready -> images = Optional.of(NativeTypes.images(ready.embeddings(),
                        ready.encoder()));
                case ImageStep.Result.Cancelled c -> cancelledWhileEncoding = true;
                case ImageStep.Result.Failed failed -> {
                    finish(plan, new RunOutcome.Failed(failed.message()), "");
                    return GenerationEvent.failed(failed.message());
                }
            }
        }
        RunControl control = new RunControl();
        // runtime 1.2 has no per-run limit: count the tokens and abort at the limit
        boolean countLimit = maxTokens > 0 && model.abi() == Abi.V1_2;
        boolean[] limitHit = {false};
        EosWatch.Run endOfTurn = eos.run();
        StringBuilder generated = new StringBuilder();
        Consumer<TokenEvent> sink = event -> {
            if (event instanceof TokenEvent.Text text) {
                if (endOfTurn.passedTheEnd(text.text())) {
                    control.abort();
                    return;
                }
                if (text.text().isEmpty()) {
                    return; // a special token that prints nothing
                }
                generated.append(text.text());
                out.text(text.text(), text.tokens());
                if (countLimit && text.tokens() >= maxTokens && !limitHit[0]) {
                    limitHit[0] = true;
                    control.abort();
                }
            }
        };
        TokenEvent terminal;
        Optional<ImageInput> pictures = images;
        try (Cancellation.Binding bound = cancellation.onCancel(control::abort)) {
            if (cancelledWhileEncoding) {
                // the client left while the pictures were encoded: the language model never runs
                terminal = new TokenEvent.Finished(PerfStats.NONE, true);
            } else {
                terminal = npu.generating(() -> pictures.isPresent()
                        ? model.run(input, pictures.get(), sink, control)
                        : model.run(input, sink, control));
            }
        } catch (RuntimeException e) {
            LOG.error("model {}: run failed", id, e);
            terminal = new TokenEvent.Failed("the run failed: " + e.getMessage());
        }
        // a run stopped at its end of turn ended as the model meant it to: its cache holds a whole turn
        boolean aborted = terminal instanceof TokenEvent.Finished f && f.aborted() && !endOfTurn.stopped();
        RunOutcome outcome = switch (terminal) {
            case TokenEvent.Finished f -> new RunOutcome.Finished(NativeTypes.stats(f.perf()), aborted);
            case TokenEvent.Failed f -> new RunOutcome.Failed(f.message());
            case TokenEvent.Text t -> throw new IllegalStateException("text is not terminal");
        };
        Optional<String> prefilled = finish(plan, outcome, generated.toString());
        String settings = "enable_thinking=" + plan.request().enableThinking();
        GenerationEvent.End end = switch (terminal) {
            case TokenEvent.Failed failed -> GenerationEvent.failed(failed.message());
            case TokenEvent.Finished finished -> finished(finished.perf(), aborted, limitHit[0], maxTokens,
                    plan.reusedTokens(), model.params(), prefilled, settings);
            case TokenEvent.Text text -> throw new IllegalStateException("text is not terminal");
        };
        if (end instanceof GenerationEvent.Done f) {
            eos.ended(endOfTurn, f.reason(), maxTokens);
        }
        return end;
    }

    /** Records what the slot holds now; the text prefilled whole, when it is known exactly. */
    private Optional<String> finish(ConversationCache.Planned plan, RunOutcome outcome, String generated) {
        try {
            return cache.finished(plan, outcome, generated);
        } catch (RuntimeException e) {
            LOG.error("model {}: recording the run failed", id, e);
            return Optional.empty();
        }
    }

    /** The cache policy's decision; taken again on fewer slots when the one it chose could not be loaded. */
    private ConversationCache.Planned plan(ChatPrompt prompt) {
        try {
            return cache.plan(prompt, slots.views());
        } catch (Slots.SlotUnavailableException e) {
            return cache.plan(prompt, slots.views());
        }
    }

    /** Why a run that the runtime finished ended. */
    private static GenerationEvent.Done finished(PerfStats perf, boolean aborted, boolean limitHit, int maxTokens,
                                            int reused, ModelParams params, Optional<String> prefilled,
                                            String settings) {
        GenerationStats stats = NativeTypes.stats(perf);
        if (limitHit || (maxTokens > 0 && !aborted && perf.generateTokens() >= maxTokens)) {
            return new GenerationEvent.Done(StopReason.LENGTH, stats, reused, prefilled, settings);
        }
        boolean contextFull = reused + perf.prefillTokens() + perf.generateTokens() >= params.maxContextLen();
        boolean runtimeLimit = params.maxNewTokens() > 0 && perf.generateTokens() >= params.maxNewTokens();
        if (!aborted && (contextFull || runtimeLimit)) {
            // the runtime stopped because nothing more fits (or at its own limit), not because the answer ended
            return new GenerationEvent.Done(StopReason.LENGTH, stats, reused, prefilled, settings);
        }
        return new GenerationEvent.Done(aborted ? StopReason.CANCELLED : StopReason.END, stats, reused, prefilled,
                settings);
    }

    /** An empty KV cache with the framing template: {@code keep_history=0} runs leave it as they found it. */
    @Override
    public void readyForEmbeddings(Optional<PromptTemplate> template) {
        FfmSlot slot = new FfmSlot(slots.get(0));
        template.ifPresent(t -> slot.setChatTemplate(t.systemPrompt(), t.promptPrefix(), t.promptPostfix()));
        slot.clearKvCache(false);
    }

    /**
     * One text in {@code RKLLM_INFER_GET_LAST_HIDDEN_LAYER} mode with {@code keep_history=0} on the empty KV cache,
     * and, like every {@code rkllm_run}, never beside an image encoder's run ({@link NpuLock}).
     */
    @Override
    public EmbeddingEnd embed(String text, Cancellation cancellation) {
        Model model = slots.get(0);
        RunControl control = new RunControl();
        HiddenLayer result;
        try (Cancellation.Binding bound = cancellation.onCancel(control::abort)) {
            RunInput input = RunInput.user(text, false);
            result = npu.generating(() -> model.lastHiddenLayer(input, control));
        }
        return switch (result) {
            case HiddenLayer.States states -> new EmbeddingEnd.Rows(states.embdSize(), states.rows(),
                    NativeTypes.stats(states.perf()));
            case HiddenLayer.Aborted aborted -> new EmbeddingEnd.Aborted();
            case HiddenLayer.Failed failed -> new EmbeddingEnd.Failed(failed.message());
        };
    }

    @Override
    public void close() {
        if (vision != null) {
            vision.close();
        }
        slots.destroyAll();
    }
}
