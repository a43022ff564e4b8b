package io.rkllm.server.http.llamacpp;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.javalin.http.Context;
import io.rkllm.server.api.ApiException;
import io.rkllm.server.domain.FailureException;
import io.rkllm.server.http.ErrorShape;
import io.rkllm.server.http.RunDriver;
import io.rkllm.server.http.Sse;
import io.rkllm.server.models.ModelDescriptor;
import io.rkllm.server.pipeline.ModelService;
import io.rkllm.server.pipeline.Run;
import io.rkllm.server.pipeline.RunStep;
import io.rkllm.server.pipeline.Usage;
import io.rkllm.server.pipeline.output.OutputEvent;
import io.rkllm.server.pipeline.output.TokenProbability;
import io.rkllm.server.pipeline.request.ChatRequest;
import java.util.List;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * POST /completion and /infill: one JSON object, or a stream of {@code data:} objects whose last one has
 * {@code stop: true} (no {@code [DONE]}: llama-server's own stream has none).
 */
final class NativeCompletionHandler {
    private static final Logger LOG = LoggerFactory.getLogger(NativeCompletionHandler.class);
    private final RunDriver driver;
    private final NativeCompletionParser parser;
    private final ObjectMapper mapper;
    private final ErrorShape errors;
    private final ModelService models;
    private final WarmUps warmUps;

    NativeCompletionHandler(RunDriver driver, NativeCompletionParser parser, ObjectMapper mapper, ErrorShape errors,
                            ModelService models) {
        this.driver = driver;
        this.models = models;
        this.warmUps = new WarmUps(models);
        this.parser = parser;
        this.mapper = mapper;
        this.errors = errors;
    }

    void completion(Context ctx) throws Exception {
        respond(ctx, parser.completion(ctx.bodyAsBytes()), false);
    }

    void infill(Context ctx) throws Exception {
        respond(ctx, parser.infill(ctx.bodyAsBytes()), true);
    }

    private void respond(Context ctx, NativeCompletionParser.Parsed parsed, boolean infill) throws Exception {
        String model = warmUps.model(parsed.model(), infill);
        if (parsed.warmUp()) {
            warmUp(ctx, parsed, model);
            return;
        }
        ChatRequest request = parsed.run().orElseThrow().withModel(model);
        driver.run(ctx, request, run -> {
            warmUps.completing(run.modelId(), infill);
            NativeCompletionJson.Settings settings = new NativeCompletionJson.Settings(run.modelId(),
                    run.chat().model().contextLength(), run.chat().maxTokens() > 0 ? run.chat().maxTokens() : -1);
            if (request.stream()) {
                driver.stream(ctx, run, new Pieces(settings));
            } else {
                driver.collect(ctx, run, answer -> ctx.status(200).contentType("application/json")
                        .result(mapper.writeValueAsBytes(NativeCompletionJson.last(mapper, settings,
                                answer.content(), answer.finishReason(), answer.matchedStop(), answer.usage()))));
            }
        });
    }

    /**
     * A warm-up: the prompt read into the model's cache (the one token it took to get there is not the answer), when
     * the model has nothing else to do; else, or when it fails or a completion stops it, the empty answer at once,
     * as one with nothing to read gets: it was never more than a head start.
     */
    private void warmUp(Context ctx, NativeCompletionParser.Parsed parsed, String model) throws Exception {
        Optional<WarmUps.Place> admitted = parsed.run().isEmpty() ? Optional.empty() : warmUps.admit(model);
        if (admitted.isPresent()) {
            try (WarmUps.Place place = admitted.get()) {
                driver.run(ctx, parsed.run().get().withModel(place.modelId()), run -> {
                    place.started(run);
                    NativeCompletionJson.Settings settings = new NativeCompletionJson.Settings(run.modelId(),
                            run.chat().model().contextLength(), 0);
                    driver.collect(ctx, run, answer -> ctx.status(200).contentType("application/json").result(
                            mapper.writeValueAsBytes(NativeCompletionJson.last(mapper, settings, "", "length",
                                    Optional.empty(), answer.usage().promptOnly()))));
                });
                return;
            } catch (FailureException | ApiException e) {
                LOG.info("warm-up of {} not read: {}", admitted.get().modelId(), e.getMessage());
            }
        }
        ctx.status(200).contentType("application/json").result(mapper.writeValueAsBytes(NativeCompletionJson.last(
                mapper, nothingRead(model), "", "length", Optional.empty(), Usage.NONE)));
    }

    /**
     * The settings of a warm-up with nothing to read: the model's, as a client's status line reads its context from
     * them, when the request's model is known without loading one.
     */
    private NativeCompletionJson.Settings nothingRead(String asked) {
        try {
            ModelDescriptor model = models.forRequest(asked);
            return new NativeCompletionJson.Settings(model.id(), model.contextLength(), 0);
        } catch (FailureException e) {
            return new NativeCompletionJson.Settings(asked, 0, 0);
        }
    }

    /** The stream: a piece per text, the last object at the end. */
    private final class Pieces implements RunDriver.StreamFormat {
        private final NativeCompletionJson.Settings settings;

        Pieces(NativeCompletionJson.Settings settings) {
            this.settings = settings;
        }

        @Override
        public String contentType() {
            return "text/event-stream";
        }

        @Override
        public List<byte[]> opening() {
            return List.of();
        }

        @Override
        public byte[] keepAlive() {
            return Sse.KEEP_ALIVE;
        }

        @Override
        public List<byte[]> output(OutputEvent event, List<TokenProbability> logprobs) {
            return event instanceof OutputEvent.Content c && !c.text().isEmpty()
                    ? List.of(Sse.data(mapper, NativeCompletionJson.piece(mapper, c.text()))) : List.of();
        }

        @Override
        public List<byte[]> finished(RunStep.Finished f, Run run) {
            return List.of(Sse.data(mapper, NativeCompletionJson.last(mapper, settings, "", f.finishReason(),
                    run.matchedStop(), f.usage())));
        }

        @Override
        public byte[] failed(ApiException error) {
            return Sse.data(mapper, errors.body(error));
        }
    }
}
