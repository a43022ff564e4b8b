package io.rkllm.server.pipeline;

import io.rkllm.server.models.ModelCatalog;
import java.util.Optional;

/**
 * Where the model catalogue comes from, and when it changes: the models directory as discovery reads it, again when
 * its files change (a model pulled, copied or deleted while the server runs), or a catalogue fixed for good.
 */
public interface CatalogSource {

    /** The catalogue now. */
    ModelCatalog current();

    /** A new catalogue when the models changed since the last look; cheap enough to ask on every request. */
    Optional<ModelCatalog> changed();

    /** The catalogue as the models directory is now, read at once (after a pull or a delete). */
    ModelCatalog rescan();

    /** A catalogue that never changes (tests, tools). */
    static CatalogSource fixed(ModelCatalog catalog) {
        return new CatalogSource() {
            @Override
            public ModelCatalog current() {
                return catalog;
            }

            @Override
            public Optional<ModelCatalog> changed() {
                return Optional.empty();
            }

            @Override
            public ModelCatalog rescan() {
                return catalog;
            }
        };
    }
}
