package io.rkllm.server.backend.rkllm;

import io.rkllm.ffm.Model;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A model's slots (handles, each with its own KV cache) on its worker thread. The first is loaded with the model;
 * the others when a run first needs one (a second conversation), so that a model configured for two slots is ready
 * as fast as with one and spends the memory of a second only when it is used. A slot that fails to load is given
 * up: the model goes on with the slots it has.
 */
final class Slots {
    private static final Logger LOG = LoggerFactory.getLogger(Slots.class);

    private final String name;
    private final Supplier<Model> loader;
    private final List<Model> handles = new ArrayList<>();
    private int capacity;
    private ImageStep vision;

    /** Loads the first slot now; the others, up to {@code capacity}, on demand. */
    Slots(String name, int capacity, Supplier<Model> loader) {
        this.name = name;
        this.loader = loader;
        this.capacity = capacity;
        handles.add(loader.get());
    }

    /** How many slots runs may use now (loaded or loadable). */
    int capacity() {
        return capacity;
    }

    /** How many are loaded. */
    int loaded() {
        return handles.size();
    }

    /** The slot's handle, loading it (and any before it) first. */
    Model get(int index) {
        while (handles.size() <= index) {
            LOG.info("loading model {}: slot {} of {} for another conversation", name, handles.size() + 1, capacity);
            try {
                handles.add(loader.get());
            } catch (RuntimeException e) {
                LOG.warn("model {}: slot {} failed to load ({}); going on with {}", name, handles.size() + 1,
                        e.getMessage(), handles.size() == 1 ? "one slot" : handles.size() + " slots");
                capacity = handles.size();
                throw new SlotUnavailableException(e);
            }
        }
        return handles.get(index);
    }

    /** The slots as the cache policy sees them: touching one that is not loaded yet loads it. */
    List<RkllmSlot> views() {
        List<RkllmSlot> views = new ArrayList<>(capacity);
        for (int i = 0; i < capacity; i++) {
            views.add(new LazySlot(i));
        }
        return views;
    }

    /** A vision model's image encoder step (one for all slots). */
    Optional<ImageStep> vision() {
        return Optional.ofNullable(vision);
    }

    void vision(ImageStep value) {
        vision = value;
    }

    List<Model> loadedHandles() {
        return List.copyOf(handles);
    }

    /** Destroys every loaded handle ({@code rkllm_destroy}), on the worker thread; logs what fails. */
    void destroyAll() {
        for (Model handle : handles) {
            try {
                handle.close();
            } catch (Throwable t) {
                LOG.error("rkllm_destroy failed", t);
            }
        }
        handles.clear();
    }

    /** A slot that could not be loaded: the run is planned again on the slots there are. */
    static final class SlotUnavailableException extends RuntimeException {
        SlotUnavailableException(Throwable cause) {
            super(cause.getMessage(), cause);
        }
    }

    private final class LazySlot implements RkllmSlot {
        private final int index;

        LazySlot(int index) {
            this.index = index;
        }

        private FfmSlot slot() {
            return new FfmSlot(get(index));
        }

        @Override
        public void clearKvCache(boolean keepSystemPrompt) {
            slot().clearKvCache(keepSystemPrompt);
        }

        @Override
        public OptionalInt kvCacheSize() {
            return slot().kvCacheSize();
        }

        @Override
        public void setChatTemplate(String systemPrompt, String promptPrefix, String promptPostfix) {
            slot().setChatTemplate(systemPrompt, promptPrefix, promptPostfix);
        }

        @Override
        public void setFunctionTools(String systemPrompt, String toolsJson, String toolResponseTag) {
            slot().setFunctionTools(systemPrompt, toolsJson, toolResponseTag);
        }
    }
}
