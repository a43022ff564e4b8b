package io.rkllm.server.app;

import io.rkllm.server.models.DiscoveryResult;
import io.rkllm.server.models.ModelCatalog;
import io.rkllm.server.models.ModelDescriptor;
import io.rkllm.server.pipeline.CatalogSource;
import java.io.IOException;
import java.nio.file.FileVisitOption;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The catalogue of a models directory that changes while the server runs (a model pulled, copied in or deleted): at
 * most every {@code interval}, when asked, the directory's names, sizes and times are compared with the last look
 * (a walk of its folders, no file read), and only a change runs discovery again. Hidden names are not looked at, so a
 * download in progress ({@code .pull}) changes nothing until its model is placed.
 */
public final class CatalogRefresh implements CatalogSource {
    private static final Logger LOG = LoggerFactory.getLogger(CatalogRefresh.class);
    /** Deeper than discovery looks, so that a sidecar's change is seen. */
    private static final int DEPTH = 4;

    private final Supplier<DiscoveryResult> discover;
    private final List<Path> watched;
    private final long intervalNanos;
    private final DiscoveryResult initial;
    private volatile ModelCatalog current;
    private List<String> fingerprint;
    private long lastLook;

    /**
     * Discovers the models once now.
     *
     * @param discover discovery of the served models (the models directory; with --simulate, the simulated models and
     *                 the directory's GGUF ones)
     * @param watched  the directories whose changes change the catalogue
     */
    public CatalogRefresh(Supplier<DiscoveryResult> discover, List<Path> watched, Duration interval) {
        this.discover = discover;
        this.watched = List.copyOf(watched);
        this.intervalNanos = interval.toNanos();
        this.fingerprint = fingerprint();
        this.lastLook = System.nanoTime();
        this.initial = discover.get();
        this.current = initial.catalog();
    }

    /** What the first discovery found, problems included (for the start banner). */
    public DiscoveryResult initial() {
        return initial;
    }

    @Override
    public ModelCatalog current() {
        return current;
    }

    @Override
    public synchronized Optional<ModelCatalog> changed() {
        long now = System.nanoTime();
        if (now - lastLook < intervalNanos) {
            return Optional.empty();
        }
        lastLook = now;
        List<String> seen = fingerprint();
        if (seen.equals(fingerprint)) {
            return Optional.empty();
        }
        fingerprint = seen;
        return Optional.of(adopt(discover.get()));
    }

    @Override
    public synchronized ModelCatalog rescan() {
        lastLook = System.nanoTime();
        fingerprint = fingerprint();
        return adopt(discover.get());
    }

    private ModelCatalog adopt(DiscoveryResult found) {
        ModelCatalog before = current;
        ModelCatalog after = found.catalog();
        Set<String> added = ids(after);
        added.removeAll(ids(before));
        Set<String> removed = ids(before);
        removed.removeAll(ids(after));
        if (!added.isEmpty() || !removed.isEmpty()) {
            LOG.info("models changed: {}{}", added.isEmpty() ? "" : "added " + added,
                    removed.isEmpty() ? "" : (added.isEmpty() ? "" : ", ") + "removed " + removed);
        }
        found.warnings().forEach(w -> LOG.warn("{}", w));
        found.errors().forEach(e -> LOG.error("{}", e));
        current = after;
        return after;
    }

    private static Set<String> ids(ModelCatalog catalog) {
        Set<String> ids = new TreeSet<>();
        catalog.all().stream().map(ModelDescriptor::id).forEach(ids::add);
        return ids;
    }

    /** Every visible name below the watched directories with its size and time, in walk order. */
    private List<String> fingerprint() {
        List<String> entries = new ArrayList<>();
        for (Path root : watched) {
            if (!Files.isDirectory(root)) {
                entries.add(root + " absent");
                continue;
            }
            try {
                Files.walkFileTree(root, EnumSet.of(FileVisitOption.FOLLOW_LINKS), DEPTH, new SimpleFileVisitor<>() {
                    @Override
                    public FileVisitResult preVisitDirectory(Path dir, BasicFileAttributes attrs) {
                        if (!dir.equals(root) && dir.getFileName().toString().startsWith(".")) {
                            return FileVisitResult.SKIP_SUBTREE;
                        }
                        entries.add(dir + "/");
                        return FileVisitResult.CONTINUE;
                    }

                    @Override
                    public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) {
                        if (!file.getFileName().toString().startsWith(".")) {
                            entries.add(file + " " + attrs.size() + " " + attrs.lastModifiedTime().toMillis());
                        }
                        return FileVisitResult.CONTINUE;
                    }

                    @Override
                    public FileVisitResult visitFileFailed(Path file, IOException e) {
                        entries.add(file + " unreadable");
                        return FileVisitResult.CONTINUE;
                    }
                });
            } catch (IOException e) {
                entries.add(root + " unreadable");
            }
        }
        return entries;
    }
}
