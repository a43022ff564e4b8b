package io.rkllm.server.pipeline;

import io.rkllm.server.domain.Failure;
import io.rkllm.server.domain.FailureException;
import io.rkllm.server.engine.contract.EncoderInfo;
import io.rkllm.server.models.ModelDescriptor;
import io.rkllm.server.models.VisionSpec;
import io.rkllm.server.pipeline.request.ChatImage;
import io.rkllm.server.pipeline.request.ChatMessage;
import io.rkllm.server.pipeline.request.Role;
import io.rkllm.server.pipeline.vision.ImageDecoder;
import io.rkllm.server.pipeline.vision.PreparedImage;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Which pictures of a request the model sees, decided before anything is queued.
 *
 * <ul>
 *   <li>A text model sees none. Pictures in earlier messages are left out (the response says so in
 *       {@code X-RKLLM-Images-Ignored}): Open WebUI resends every picture of a chat with every turn, and one
 *       picture must not break the chat. A picture in the newest message is refused with an error naming the
 *       vision models ({@code vision.text_model_images: refuse}) or left out too ({@code ignore}).</li>
 *   <li>A vision model sees the pictures of the newest user message that has any (as Rockchip's demo and the
 *       peers do; a follow-up question about a picture sent earlier is about that picture), at most its
 *       {@code max_images}; pictures of older messages are left out. Each picture becomes one {@code <image>}
 *       placeholder at the start of its message, and any {@code <image>} a text already holds is defused, since
 *       the runtime counts placeholders against the pictures it is given.</li>
 * </ul>
 * The pictures seen are decoded and fitted here, on the request's thread, unless their embedding is cached.
 */
final class VisionStep {
    private static final Logger LOG = LoggerFactory.getLogger(VisionStep.class);
    static final String PLACEHOLDER = "<image>";
    /** What a literal placeholder in a text becomes: the same for a reader, no placeholder for the runtime. */
    static final String DEFUSED = "<image >";
    static final String IGNORED_HEADER = "X-RKLLM-Images-Ignored";

    /**
     * The outcome.
     *
     * @param conversation the conversation as the model sees it (placeholders in, pictures only on the message
     *                     that shows them)
     * @param input the pictures shown, ready for the run
     * @param notes response headers about pictures left out
     */
    record Result(Conversation conversation, VisionInput input, List<PreparedChat.Header> notes) {
    }

    private final ModelService models;
    private final ImageDecoder decoder;
    private final boolean refuseForTextModels;

    VisionStep(ModelService models, ImageDecoder decoder, boolean refuseForTextModels) {
        this.models = models;
        this.decoder = decoder;
        this.refuseForTextModels = refuseForTextModels;
    }

    Result apply(ModelDescriptor model, Conversation c, boolean task) {
        List<ChatMessage> all = new ArrayList<>(c.history());
        all.addAll(c.newMessages());
        int pictures = all.stream().mapToInt(m -> m.images().size()).sum();
        if (pictures == 0 && !model.seesImages()) {
            return new Result(c, VisionInput.NONE, List.of());
        }
        if (!model.seesImages() || task) {
            return withoutPictures(model, c, pictures, task);
        }
        VisionSpec spec = model.vision().orElseThrow();
        int chosen = -1;
        for (int i = all.size() - 1; i >= 0 && chosen < 0; i--) {
            if (all.get(i).role() == Role.USER && !all.get(i).images().isEmpty()) {
                chosen = i;
            }
        }
        List<PreparedChat.Header> notes = new ArrayList<>();
        List<ChatImage> shown = chosen < 0 ? List.of() : all.get(chosen).images();
        boolean chosenIsNew = chosen >= c.history().size();
        if (shown.size() > spec.maxImages()) {
            if (chosenIsNew) {
                throw new FailureException(new Failure.InvalidRequest("messages", "too_many_images", "model '"
                        + model.id() + "' takes at most " + spec.maxImages() + " picture" + (spec.maxImages() == 1
                        ? "" : "s") + " per message (vision.max_images in its model.yaml); this message has "
                        + shown.size()));
            }
            shown = shown.subList(0, spec.maxImages());
        }
        int left = pictures - shown.size();
        if (left > 0) {
            String why = left + " picture" + (left == 1 ? "" : "s") + " of earlier messages left out: the model sees"
                    + " the pictures of the newest message that has any";
            notes.add(new PreparedChat.Header(IGNORED_HEADER, why));
            LOG.info("model {}: {}", model.id(), why);
        }
        List<ChatMessage> seen = new ArrayList<>(all.size());
        for (int i = 0; i < all.size(); i++) {
            ChatMessage m = all.get(i);
            String text = defuse(m.content());
            if (i == chosen) {
                seen.add(m.withContent(PLACEHOLDER.repeat(shown.size()) + text).withImages(shown));
            } else {
                seen.add(m.withContent(text).withImages(List.of()));
            }
        }
        Conversation out = rebuild(c, seen, chosen >= 0 ? PLACEHOLDER.repeat(shown.size()) : "", chosen);
        return new Result(out, prepare(model, spec, shown), List.copyOf(notes));
    }

    /** The pictures a text model (or a background task) cannot see, left out or refused. */
    private Result withoutPictures(ModelDescriptor model, Conversation c, int pictures, boolean task) {
        int fresh = c.newMessages().stream().mapToInt(m -> m.images().size()).sum();
        if (fresh > 0 && refuseForTextModels && !task) {
            List<String> vision = models.all().stream().filter(ModelDescriptor::seesImages).map(ModelDescriptor::id)
                    .toList();
            throw new FailureException(new Failure.InvalidRequest("messages", "unsupported_content", "the model '"
                    + model.id() + "' reads text only and cannot see the picture in the last message. "
                    + (vision.isEmpty() ? "No vision model is installed here (docs/vision.md says how to add one)."
                    : "Send it to a vision model: " + String.join(", ", vision) + ".")));
        }
        List<ChatMessage> all = new ArrayList<>();
        c.history().forEach(m -> all.add(m.withImages(List.of())));
        c.newMessages().forEach(m -> all.add(m.withImages(List.of())));
        List<PreparedChat.Header> notes = new ArrayList<>();
        if (pictures > 0 && !task) {
            String why = pictures + " picture" + (pictures == 1 ? "" : "s") + " left out: model " + model.id()
                    + " reads text only";
            notes.add(new PreparedChat.Header(IGNORED_HEADER, why));
            LOG.info("{}", why);
        }
        return new Result(rebuild(c, all, "", -1), VisionInput.NONE, notes);
    }

    /** The conversation with its messages replaced; the new messages' cache keys follow their changes. */
    private static Conversation rebuild(Conversation c, List<ChatMessage> all, String placeholders, int chosen) {
        int split = c.history().size();
        List<ChatMessage> fresh = all.subList(split, all.size());
        List<String> keys = new ArrayList<>(fresh.size());
        for (int i = 0; i < fresh.size(); i++) {
            ChatMessage before = c.newMessages().get(i);
            ChatMessage after = fresh.get(i);
            String key = c.newMessageKeys().get(i);
            keys.add(key.equals(MessageKeys.key(before)) ? MessageKeys.key(after)
                    : MessageKeys.rewritten(key, before, after, split + i == chosen ? placeholders : "",
                    VisionStep::defuse));
        }
        return new Conversation(defuse(c.systemPrompt()), all.subList(0, split), fresh, keys);
    }

    /** Decodes and fits the pictures shown, unless their embeddings are cached already. */
    private VisionInput prepare(ModelDescriptor model, VisionSpec spec, List<ChatImage> shown) {
        Optional<EncoderInfo> loaded = models.encoder(model);
        int width = loaded.map(EncoderInfo::width).orElse(spec.imageWidth());
        int height = loaded.map(EncoderInfo::height).orElse(spec.imageHeight());
        int tokens = loaded.map(EncoderInfo::imageTokens).orElse(spec.imageTokens());
        Map<String, PreparedImage> prepared = new LinkedHashMap<>();
        for (ChatImage image : shown) {
            PreparedImage p = prepared.computeIfAbsent(image.digest(), d -> new PreparedImage(image, decoder));
            if (!models.imageEmbeddingCached(model, image.digest())) {
                VisionInput.prepare(p, width, height);
            }
        }
        return new VisionInput(model.id(), prepared, tokens);
    }

    /** Fits a picture now; what cannot be used is the client's error, naming where the picture was. */
    static String defuse(String text) {
        return text.contains(PLACEHOLDER) ? text.replace(PLACEHOLDER, DEFUSED) : text;
    }
}
