package io.rkllm.server.app;

import io.rkllm.server.download.Puller;
import io.rkllm.server.models.ModelCatalog;
import io.rkllm.server.pipeline.CatalogSource;
import java.util.Optional;

/**
 * The models a server serves and how they change: the catalogue's source, and the puller that writes models into the
 * models directory for {@code POST /api/pull} (with {@code DELETE /api/delete}), when the server has one.
 */
public record ServedModels(CatalogSource catalogs, Optional<Puller> downloads) {

    /** A catalogue that never changes, and no downloads (tests, tools). */
    public static ServedModels fixed(ModelCatalog catalog) {
        return new ServedModels(CatalogSource.fixed(catalog), Optional.empty());
    }
}
