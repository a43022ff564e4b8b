package io.rkllm.server.http.ollama;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.javalin.http.Context;
import io.rkllm.server.api.ApiException;
import io.rkllm.server.api.CommonFields;
import io.rkllm.server.download.HubFile;
import io.rkllm.server.download.PullException;
import io.rkllm.server.download.PullOrigin;
import io.rkllm.server.download.PullProgress;
import io.rkllm.server.download.PullResult;
import io.rkllm.server.download.Puller;
import io.rkllm.server.http.StreamSink;
import io.rkllm.server.models.ModelDescriptor;
import io.rkllm.server.pipeline.ModelService;
import io.rkllm.server.security.PullPolicy;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Ollama's {@code POST /api/pull} and {@code DELETE /api/delete}, which Open WebUI's model settings and Ollama's
 * clients use: a model from the Hugging Face Hub into the models directory (streamed as Ollama's progress lines,
 * {@code {"status", "digest", "total", "completed"}}, ending with {@code {"status": "success"}} or an
 * {@code {"error"}} line; one answer with {@code "stream": false}), served at once; a model's files deleted, after it
 * is unloaded. Only where {@code security.allow_pull} allows it.
 */
final class OllamaPulls {
    private static final Logger LOG = LoggerFactory.getLogger(OllamaPulls.class);
    /** Progress lines of one file at most this often, unless it moved by a hundredth (Ollama's clients redraw on each). */
    private static final long LINE_EVERY = 100_000_000L;

    /** How long a delete waits for the pull it cancels to stop (it stops at its next buffer: at once). */
    private static final Duration CANCEL_WAIT = Duration.ofSeconds(10);

    private final ModelService models;
    private final Optional<Puller> downloads;
    /** How long a pull that ended is remembered, for a delete of its name to remove its partial download. */
    private static final Duration STOPPED_FOR = Duration.ofMinutes(2);
    private final java.util.concurrent.ConcurrentMap<String, Stopped> stopped =
            new java.util.concurrent.ConcurrentHashMap<>();
    /** The pulls under way, by the name they were asked by: a delete of that name cancels them. */
    private final java.util.concurrent.ConcurrentMap<String, CancellablePull> pulling =
            new java.util.concurrent.ConcurrentHashMap<>();
    private final PullPolicy policy;
    private final CommonFields fields;
    private final ObjectMapper mapper;

    OllamaPulls(ModelService models, Optional<Puller> downloads, PullPolicy policy, CommonFields fields,
                ObjectMapper mapper) {
        this.models = models;
        this.fields = fields;
        this.downloads = downloads;
        this.policy = policy;
        this.mapper = mapper;
    }

    void pull(Context ctx) throws IOException {
        policy.check();
        JsonNode body = fields.object(ctx.bodyAsBytes());
        String asked = name(body, "the model to pull, e.g. qwen3:4b or hf.co/bartowski/Qwen2.5-1.5B-Instruct-GGUF:Q4_K_M");
        JsonNode stream = body.get("stream");
        if (stream != null && !stream.isNull() && !stream.isBoolean()) {
            throw ApiException.invalid("stream", "'stream' must be true or false");
        }
        JsonNode insecureField = body.get("insecure");
        boolean insecure = insecureField != null && insecureField.asBoolean(false);
        Puller puller = puller();
        // a model already here is updated from where it came (Open WebUI's "update all" pulls each listed name)
        Optional<ModelDescriptor> installed = models.exactly(asked);
        Optional<String> source = installed.flatMap(OllamaPulls::source);
        String name = source.orElse(asked);
        if (installed.isEmpty()) {
            try {
                Puller.target(name); // a name that is no model's is a 400, before any 200 is committed
            } catch (PullException e) {
                throw refusal(e);
            }
        }
        boolean blocking = stream != null && !stream.isNull() && !stream.asBoolean();
        CancellablePull cancel = new CancellablePull();
        String key = key(asked);
        if (pulling.putIfAbsent(key, cancel) != null) {
            throw refusal(new PullException(PullException.Kind.CONFLICT, asked + " is being pulled right now; wait"
                    + " for that pull to finish"));
        }
        boolean left = false;
        try {
            if (blocking) {
                try {
                    if (installed.isEmpty() || source.isPresent()) {
                        served(puller, puller.pull(name, insecure, cancel.watching(PullProgress.NONE)));
                    }
                } catch (PullException e) {
                    throw refusal(e);
                }
                json(ctx, mapper.createObjectNode().put("status", "success"));
                return;
            }
            StreamSink sink = StreamSink.open(ctx.res(), OllamaHandler.NDJSON);
            Lines lines = new Lines(sink);
            try {
                if (installed.isEmpty() || source.isPresent()) {
                    PullResult result = puller.pull(name, insecure, cancel.watching(lines));
                    lines.finishing();
                    served(puller, result);
                } else {
                    // put here by hand: there is nowhere to update it from
                    lines.status("pulling manifest");
                }
                lines.status("success");
            } catch (PullException e) {
                if (e.kind() == PullException.Kind.CANCELLED) {
                    LOG.info("pull of {} stopped: {}", name, e.getMessage());
                    left = true;
                    return;
                }
                try {
                    sink.send(line(mapper.createObjectNode().put("error", e.getMessage())));
                } catch (IOException gone) {
                    LOG.info("pull of {} failed after its client left: {}", name, e.getMessage());
                }
            }
        } finally {
            pulling.remove(key, cancel);
            // a pull stopped by its client going away keeps its partial download for a resume, unless its name is
            // deleted soon after (Open WebUI's cancel drops the stream, then deletes the name); one that ended
            // otherwise is no pull to cancel: a delete of its name deletes the model
            stopped.values().removeIf(s -> System.nanoTime() - s.at() > STOPPED_FOR.toNanos());
            if (left) {
                stopped.put(key, new Stopped(cancel.files(), System.nanoTime()));
            } else {
                stopped.remove(key);
            }
            cancel.ended();
        }
    }

    /** A pull that ended, and the files it was transferring. */
    private record Stopped(java.util.Set<HubFile> files, long at) {
    }

    /**
     * Where an installed model came from, as the name to pull it again by: a registry's model by its name, a Hub
     * repository with the quantisation of its file ({@code hf.co/OWNER/REPO:Q4_K_M}); none for a model a pull did not
     * write.
     */
    private static Optional<String> source(ModelDescriptor model) {
        return PullOrigin.of(model.file().getParent()).map(o -> o.registryName().isPresent() ? o.pullName()
                : "hf.co/" + o.source() + model.facts().header().map(h -> ":" + h.quantisation()).orElse(""));
    }

    private static String key(String name) {
        return name.strip().toLowerCase(java.util.Locale.ROOT);
    }

    void delete(Context ctx) {
        policy.check();
        JsonNode body = fields.object(ctx.bodyAsBytes());
        String name = name(body, "the model to delete");
        Puller puller = puller();
        CancellablePull pull = pulling.get(key(name));
        Stopped ended = stopped.remove(key(name));
        if (pull == null && ended != null && models.exactly(name).isEmpty()) {
            // the pull ended as its client went away, just before this delete: its partial download goes too
            puller.models().discard(List.copyOf(ended.files()));
            LOG.info("pull of {} cancelled by a delete of its name (its partial download removed)", name);
            ctx.status(200);
            return;
        }
        if (pull != null) {
            // Open WebUI's cancel of a download: the pull stops and leaves nothing
            pull.cancel();
            if (!pull.awaitEnd(CANCEL_WAIT)) {
                LOG.warn("the pull of {} did not stop within {} s of its cancel", name, CANCEL_WAIT.toSeconds());
            }
            LOG.info("pull of {} cancelled by a delete of its name", name);
            if (models.exactly(name).isEmpty()) {
                ctx.status(200);
                return;
            }
        }
        ModelDescriptor model = models.exactly(name).orElseThrow(() -> new ApiException(404, "not_found_error",
                "model_not_found", "model", "model '" + name + "' not found", Map.of(), null));
        models.withdraw(model);
        try {
            puller.models().delete(model.file());
        } catch (PullException e) {
            models.refresh();
            throw refusal(e);
        } finally {
            models.refresh();
        }
        LOG.info("model {} deleted ({})", model.id(), model.file());
        ctx.status(200);
    }

    /**
     * The pulled model is in the catalogue now; a downloaded file the server cannot serve (not a usable model file) is
     * deleted again and the pull fails, so that nothing unusable stays behind. One kept from being served by what lies
     * beside it (its folder's {@code model.yaml}) is the user's to mend, and stays.
     */
    private void served(Puller puller, PullResult result) throws PullException {
        models.refresh();
        Path file = result.model().toAbsolutePath().normalize();
        boolean listed = models.all().stream().anyMatch(m -> m.file().toAbsolutePath().normalize().equals(file));
        if (!listed && (result.upToDate() || !models.refusedFile(file))) {
            throw new PullException(PullException.Kind.CONFLICT, result.plan().primary().path() + " is in "
                    + result.folder() + " but not served: the server's log says why (its model.yaml?)");
        }
        if (!listed) {
            puller.models().delete(file);
            models.refresh();
            throw new PullException(PullException.Kind.BAD_GATEWAY, result.plan().primary().path() + " was downloaded"
                    + " but is not a model this server can serve (the server's log says why); it was removed");
        }
    }

    private Puller puller() {
        return downloads.orElseThrow(() -> new ApiException(501, "invalid_request_error", "not_supported", null,
                "this server does not manage a models directory", Map.of(), null));
    }

    private String name(JsonNode body, String what) {
        JsonNode model = body.get("model");
        if (model == null || model.isNull() || (model.isTextual() && model.asText().isBlank())) {
            model = body.get("name"); // older clients
        }
        if (model != null && !model.isNull() && !model.isTextual()) {
            throw ApiException.invalid("model", "'model' must be a string");
        }
        if (model == null || model.isNull() || model.asText().isBlank()) {
            throw ApiException.invalid("model", "'model' is required: " + what);
        }
        return model.asText().strip();
    }

    /** A pull's failure as the status Ollama's clients read (the body is Ollama's {@code {"error"}}). */
    static ApiException refusal(PullException e) {
        String code = switch (e.kind()) {
            case INVALID -> "invalid_model_name";
            case AMBIGUOUS -> "ambiguous_model";
            case NOT_FOUND -> "model_not_found";
            case UNAUTHORIZED -> "hub_token_required";
            case CONFLICT -> "pull_in_progress";
            case INSUFFICIENT_STORAGE -> "insufficient_storage";
            case BAD_GATEWAY -> "hub_error";
            case CANCELLED -> "cancelled";
        };
        int status = e.kind().status();
        String type = status >= 500 ? "server_error" : status == 401 ? "authentication_error"
                : status == 404 ? "not_found_error" : "invalid_request_error";
        return new ApiException(status, type, code, "model", e.getMessage(), Map.of(), null);
    }

    private void json(Context ctx, ObjectNode body) throws IOException {
        ctx.contentType("application/json").result(mapper.writeValueAsBytes(body));
    }

    private byte[] line(ObjectNode node) throws IOException {
        byte[] json = mapper.writeValueAsBytes(node);
        byte[] out = java.util.Arrays.copyOf(json, json.length + 1);
        out[json.length] = '\n';
        return out;
    }

    /** Ollama's progress lines; a client gone ends the pull (what was downloaded stays for a resume). */
    private final class Lines implements PullProgress {
        private final StreamSink sink;
        private HubFile file;
        private long lastLine;
        private long lastCompleted;
        private boolean finished;

        Lines(StreamSink sink) {
            this.sink = sink;
        }

        void status(String status) throws PullException {
            send(mapper.createObjectNode().put("status", status));
        }

        @Override
        public void listing(String repo, String source) throws PullException {
            status("pulling manifest");
        }

        @Override
        public void transfer(HubFile f, long completed) throws PullException {
            long now = System.nanoTime();
            if (f.equals(file) && completed < f.size() && now - lastLine < LINE_EVERY
                    && completed - lastCompleted < f.size() / 100) {
                return;
            }
            file = f;
            lastLine = now;
            lastCompleted = completed;
            String digest = f.digest().label();
            send(mapper.createObjectNode().put("status", "pulling " + f.digest().hex().substring(0, 12))
                    .put("digest", digest).put("total", f.size()).put("completed", completed));
        }

        @Override
        public void stopped(HubFile f, long completed, String why, Duration wait) throws PullException {
            long percent = f.size() == 0 ? 100 : completed * 100 / f.size();
            status("pulling " + f.digest().hex().substring(0, 12) + ": stopped at " + percent + "% (" + why
                    + "); trying again in " + Math.max(1, wait.toSeconds()) + " s");
        }

        @Override
        public void placing(Path folder) throws PullException {
            finishing();
        }

        /** Ollama's last two steps, once. */
        void finishing() throws PullException {
            if (!finished) {
                finished = true;
                status("verifying sha256 digest");
                status("writing manifest");
            }
        }

        private void send(ObjectNode node) throws PullException {
            try {
                sink.send(line(node));
            } catch (IOException e) {
                throw new PullException(PullException.Kind.CANCELLED, "the client went away");
            }
        }
    }
}
