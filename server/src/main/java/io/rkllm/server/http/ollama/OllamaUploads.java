package io.rkllm.server.http.ollama;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.javalin.http.Context;
import io.rkllm.server.api.ApiException;
import io.rkllm.server.api.CommonFields;
import io.rkllm.server.download.PullException;
import io.rkllm.server.download.Puller;
import io.rkllm.server.download.Uploads;
import io.rkllm.server.http.StreamSink;
import io.rkllm.server.models.ModelDescriptor;
import io.rkllm.server.pipeline.ModelService;
import io.rkllm.server.security.PullPolicy;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Ollama's {@code HEAD|POST /api/blobs/sha256:HEX} and {@code POST /api/create}, which Open WebUI's "upload a GGUF"
 * sends (the file as a blob, then a model created from it): a blob streamed to the disk in constant memory and kept
 * only with its digest (201, 200 when it was here already, 400 when its bytes have another digest), a model created
 * from blobs or from a model here, with its system prompt and parameters, served at once. Only where
 * {@code security.allow_pull} allows pulls.
 */
final class OllamaUploads {
    private static final Logger LOG = LoggerFactory.getLogger(OllamaUploads.class);

    private final ModelService models;
    private final Optional<Puller> downloads;
    private final PullPolicy policy;
    private final CommonFields fields;
    private final ObjectMapper mapper;

    OllamaUploads(ModelService models, Optional<Puller> downloads, PullPolicy policy, CommonFields fields,
                  ObjectMapper mapper) {
        this.models = models;
        this.downloads = downloads;
        this.policy = policy;
        this.fields = fields;
        this.mapper = mapper;
    }

    private Uploads uploads() {
        return new Uploads(downloads.orElseThrow(() -> new ApiException(501, "invalid_request_error", "not_supported",
                null, "this server does not manage a models directory", Map.of(), null)).models());
    }

    void hasBlob(Context ctx) {
        policy.check();
        try {
            ctx.status(uploads().has(ctx.pathParam("digest")) ? 200 : 404);
        } catch (PullException e) {
            throw OllamaPulls.refusal(e);
        }
    }

    void putBlob(Context ctx) throws IOException {
        policy.check();
        Uploads uploads = uploads();
        String digest = ctx.pathParam("digest");
        try (InputStream body = ctx.req().getInputStream()) {
            boolean stored = uploads.receive(digest, body, ctx.req().getContentLengthLong());
            ctx.status(stored ? 201 : 200);
            if (stored) {
                LOG.info("blob {} received", digest);
            }
        } catch (PullException e) {
            throw OllamaPulls.refusal(e);
        }
    }

    void create(Context ctx) throws IOException {
        policy.check();
        Uploads uploads = uploads();
        JsonNode body = fields.object(ctx.bodyAsBytes());
        String name = text(body, "model").or(() -> text(body, "name")).orElseThrow(() -> ApiException.invalid("model",
                "'model' is required: the name of the model to create"));
        // refused rather than ignored: a model created without them would not be what was asked for
        if (body.hasNonNull("quantize") || body.hasNonNull("quantization")) {
            throw ApiException.invalid("quantize", "quantize is not supported here: this server does not requantise;"
                    + " upload the GGUF of the quantisation you want");
        }
        if (body.path("adapters").isObject() && !body.path("adapters").isEmpty()) {
            throw ApiException.invalid("adapters", "adapters are not supported here: LoRA adapters are not loaded");
        }
        Map<String, String> files = new LinkedHashMap<>();
        body.path("files").properties().forEach(e -> files.put(e.getKey(), e.getValue().asText("")));
        Optional<Path> from = text(body, "from").map(f -> models.exactly(f).map(ModelDescriptor::file)
                .orElseThrow(() -> new ApiException(404, "not_found_error", "model_not_found", "from",
                        "model '" + f + "' not found", Map.of(), null)));
        // a licence is a string, or a list of them (Ollama's licence layers)
        JsonNode license = body.path("license");
        Optional<String> licence;
        if (license.isArray()) {
            StringBuilder all = new StringBuilder();
            license.forEach(l -> all.append(all.isEmpty() ? "" : "\n\n").append(l.asText("")));
            licence = Optional.of(all.toString());
        } else {
            licence = text(body, "license");
        }
        Optional<String> parameters = body.path("parameters").isObject()
                ? Optional.of(body.path("parameters").toString()) : Optional.empty();
        Uploads.Creation creation = new Uploads.Creation(name, files, from, text(body, "system"), parameters,
                licence, text(body, "template"));
        Uploads.Created created;
        try {
            created = uploads.create(creation);
        } catch (PullException e) {
            throw OllamaPulls.refusal(e);
        }
        models.refresh();
        Path file = created.model().toAbsolutePath().normalize();
        boolean listed = models.all().stream().anyMatch(m -> m.file().toAbsolutePath().normalize().equals(file));
        if (!listed) {
            // a GGUF the server cannot serve (its architecture, a projector alone): nothing is left of it
            try {
                downloads.orElseThrow().models().delete(file);
            } catch (PullException e) {
                LOG.warn("model {} could not be removed again: {}", created.folder(), e.getMessage());
            }
            models.refresh();
            throw ApiException.invalid("files", name + ": the file is not a model this server can serve (the"
                    + " server's log says why); nothing was created");
        }
        LOG.info("model {} created in {}", name, created.folder());
        JsonNode stream = body.get("stream");
        if (stream != null && stream.isBoolean() && !stream.asBoolean()) {
            json(ctx, mapper.createObjectNode().put("status", "success"));
            return;
        }
        StreamSink sink = StreamSink.open(ctx.res(), OllamaHandler.NDJSON);
        send(sink, "parsing GGUF");
        if (created.templateIgnored()) {
            // Ollama's Go templates are not run here; saying so beats a model that silently ignores it
            send(sink, "not using the template sent: it is a Go template, and this server renders the model's own"
                    + " Jinja chat template (send a Jinja template to replace it)");
        }
        for (String layer : created.layers()) {
            send(sink, "using existing layer " + layer);
        }
        send(sink, "writing manifest");
        send(sink, "success");
    }

    private static Optional<String> text(JsonNode body, String field) {
        JsonNode v = body.get(field);
        if (v == null || v.isNull()) {
            return Optional.empty();
        }
        if (!v.isTextual()) {
            throw ApiException.invalid(field, "'" + field + "' must be a string");
        }
        return v.asText().isBlank() ? Optional.empty() : Optional.of(v.asText());
    }

    private void send(StreamSink sink, String status) throws IOException {
        byte[] json = mapper.writeValueAsBytes(mapper.createObjectNode().put("status", status));
        byte[] line = java.util.Arrays.copyOf(json, json.length + 1);
        line[json.length] = '\n';
        sink.send(line);
    }

    private void json(Context ctx, ObjectNode body) throws IOException {
        ctx.contentType("application/json").result(mapper.writeValueAsBytes(body));
    }
}
