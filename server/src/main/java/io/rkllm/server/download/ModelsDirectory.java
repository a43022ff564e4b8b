package io.rkllm.server.download;

import java.io.IOException;
import java.io.InputStream;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.DirectoryStream;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.security.MessageDigest;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The models directory as pulls write it and deletes empty it. Downloads are written in its hidden {@code .pull}
 * folder (discovery skips hidden names, and a rename from there to a model's folder stays on one file system), named
 * by the digest they must have; a model's files appear in its folder only once all of them are verified, a new
 * folder in one rename. A model folder's {@code .pull.json} records what was verified there. Nothing is written
 * outside the directory: folder names are checked, and a delete removes only what belongs to one model.
 */
public final class ModelsDirectory {
    static final String STAGING = ".pull";
    private static final String SIDECAR = "model.yaml";
    /** Room left free beside a download, for the system and the logs. */
    static final long RESERVE = 64L << 20;
    /** How long a partial download no pull writes is kept for a resume (Ollama prunes unused blobs too). */
    public static final Duration STALE_PARTIAL = Duration.ofDays(7);

    private final Path root;
    private final DiskSpace disk;
    private final ModelFiles files;
    private final ConcurrentMap<String, ReentrantLock> pulling = new ConcurrentHashMap<>();

    /**
     * @param modelEndings the endings of the model files of every engine the server has (lower case, {@code .gguf}):
     *                     what a delete must leave of another model in the same folder, whatever its engine
     */
    public ModelsDirectory(Path root, DiskSpace disk, List<String> modelEndings) {
        this.root = root.toAbsolutePath().normalize();
        this.disk = disk;
        this.files = new ModelFiles(this.root, List.copyOf(modelEndings));
    }

    public Path root() {
        return root;
    }

    /** The directory, created when it is not there yet (a fresh install's first pull). */
    void create() throws PullException {
        try {
            Files.createDirectories(root);
        } catch (IOException e) {
            throw Transfer.storage(root, e);
        }
    }

    /** Where a file's download is written until it is verified and placed. */
    Path partial(HubFile file) throws PullException {
        Path staging = root.resolve(STAGING);
        try {
            Files.createDirectories(staging);
        } catch (IOException e) {
            throw Transfer.storage(staging, e);
        }
        return staging.resolve(file.digest().fileName() + ".partial");
    }

    long partialBytes(HubFile file) {
        try {
            Path p = root.resolve(STAGING).resolve(file.digest().fileName() + ".partial");
            return Files.isRegularFile(p) ? Math.min(file.size(), Files.size(p)) : 0;
        } catch (IOException e) {
            return 0;
        }
    }

    /** The folder a plan writes: a plain name directly in the directory. */
    Path folder(PullPlan plan) throws PullException {
        String name = plan.folder();
        if (name.isEmpty() || name.startsWith(".") || name.contains("/") || name.contains("\\")
                || name.equals("lost+found") || name.chars().anyMatch(c -> c < 0x20)) {
            throw new PullException(PullException.Kind.INVALID, "'" + name + "' cannot be a model folder's name");
        }
        Path folder = root.resolve(name).normalize();
        if (!root.equals(folder.getParent())) {
            throw new PullException(PullException.Kind.INVALID, "'" + name + "' cannot be a model folder's name");
        }
        return folder;
    }

    /** Held while a pull writes a folder: a second pull of it at the same time is refused. */
    AutoCloseable lock(String folder) throws PullException {
        ReentrantLock lock = pulling.computeIfAbsent(folder, k -> new ReentrantLock());
        if (!lock.tryLock()) {
            throw new PullException(PullException.Kind.CONFLICT, folder + " is being pulled right now; wait for that"
                    + " pull to finish");
        }
        return lock::unlock;
    }

    /** A folder that holds another model than the plan's is not written into. */
    void checkFolder(Path folder, PullPlan plan) throws PullException {
        if (!Files.exists(folder, LinkOption.NOFOLLOW_LINKS)) {
            return;
        }
        if (!Files.isDirectory(folder)) {
            throw new PullException(PullException.Kind.CONFLICT, folder + " exists and is not a folder; move it"
                    + " away to pull this model");
        }
        List<String> planned = plan.files().stream().map(HubFile::name).toList();
        for (Path other : files.modelFiles(folder)) {
            if (!planned.contains(other.getFileName().toString())) {
                throw new PullException(PullException.Kind.CONFLICT, folder + " already holds another model ("
                        + other.getFileName() + "); move it away to pull this model there");
            }
        }
    }

    /**
     * Whether the folder already has the file with the Hub's digest: its receipt vouches for it, or its bytes are
     * read and hashed (a file put there by hand, or changed since).
     */
    boolean present(Path folder, HubFile file, Optional<Receipt> receipt, PullProgress progress)
            throws PullException {
        Path local = folder.resolve(file.name());
        try {
            if (!Files.isRegularFile(local) || Files.size(local) != file.size()) {
                return false;
            }
            if (receipt.isPresent() && receipt.get().vouchesFor(local, file)) {
                return true;
            }
            if (file.name().toLowerCase(Locale.ROOT).endsWith(".yaml")) {
                return true; // a sidecar there is the user's to keep, whatever the repository has
            }
            progress.verifying(file);
            MessageDigest digest = file.digest().start(file.size());
            byte[] buffer = new byte[512 * 1024];
            try (InputStream in = Files.newInputStream(local)) {
                int n;
                while ((n = in.read(buffer)) > 0) {
                    digest.update(buffer, 0, n);
                }
            }
            return file.digest().matches(digest);
        } catch (IOException e) {
            return false;
        }
    }

    /** Refuses a download the disk has no room for, before a byte is written. */
    void requireSpace(long bytes) throws PullException {
        if (bytes <= 0) {
            return;
        }
        long free;
        try {
            free = disk.usable(root);
        } catch (IOException e) {
            return; // the write itself will say
        }
        if (bytes + RESERVE > free) {
            throw new PullException(PullException.Kind.INSUFFICIENT_STORAGE, "not enough disk space in " + root
                    + ": the download needs " + Sizes.of(bytes) + " (and " + Sizes.of(RESERVE) + " to spare), "
                    + Sizes.of(free) + " is free");
        }
    }

    /**
     * Moves the verified downloads into the model's folder, writes the sidecar when the folder has none and the
     * receipt: a new folder appears whole in one rename, an existing one gets its files replaced one by one, the
     * model file last.
     */
    void place(PullPlan plan, Path folder, Map<HubFile, Path> verified, Receipt receipt, RepoListing listing)
            throws PullException {
        try {
            if (!Files.exists(folder, LinkOption.NOFOLLOW_LINKS)) {
                Path assembly = root.resolve(STAGING).resolve(plan.folder() + "." + UUID.randomUUID() + ".placing");
                Files.createDirectories(assembly);
                fill(plan, assembly, verified, receipt, listing);
                try {
                    Files.move(assembly, folder, StandardCopyOption.ATOMIC_MOVE);
                    deleteEmpty(root.resolve(STAGING));
                    return;
                } catch (FileAlreadyExistsException | AtomicMoveNotSupportedException e) {
                    // created meanwhile: fall through to placing file by file, from the assembly
                    verified = fromAssembly(plan, assembly, verified);
                }
            }
            fill(plan, folder, verified, receipt, listing);
            verified.values().stream().map(Path::getParent).filter(p -> p.getFileName().toString()
                    .endsWith(".placing")).distinct().forEach(ModelsDirectory::deleteEmpty);
            deleteEmpty(root.resolve(STAGING));
        } catch (IOException e) {
            throw Transfer.storage(folder, e);
        }
    }

    private static Map<HubFile, Path> fromAssembly(PullPlan plan, Path assembly, Map<HubFile, Path> verified) {
        Map<HubFile, Path> moved = new java.util.LinkedHashMap<>();
        verified.keySet().forEach(f -> moved.put(f, assembly.resolve(f.name())));
        return moved;
    }

    private void fill(PullPlan plan, Path folder, Map<HubFile, Path> verified, Receipt receipt, RepoListing listing)
            throws IOException {
        Map<String, HubFile> recorded = new java.util.LinkedHashMap<>();
        List<HubFile> order = new ArrayList<>(plan.files().subList(1, plan.files().size()));
        order.add(plan.primary());
        for (HubFile f : order) {
            Path from = verified.get(f);
            Path to = folder.resolve(f.name());
            if (from != null && !(f.name().toLowerCase(Locale.ROOT).endsWith(".yaml") && Files.exists(to))) {
                if (!from.equals(to)) {
                    Files.move(from, to, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
                }
            }
            if (Files.isRegularFile(to) && !f.name().toLowerCase(Locale.ROOT).endsWith(".yaml")) {
                recorded.put(f.name(), f);
            }
        }
        Path sidecar = folder.resolve(SIDECAR);
        if (plan.sidecar().isPresent() && (!Files.exists(sidecar) || pullWrote(sidecar, plan.sidecar().get()))) {
            Path tmp = folder.resolve("." + SIDECAR + ".tmp");
            Files.writeString(tmp, plan.sidecar().get());
            Files.move(tmp, sidecar, StandardCopyOption.ATOMIC_MOVE);
        }
        receipt.with(folder, recorded, listing.repo(), listing.revision()).write(folder);
    }

    /**
     * Whether a pull wrote this sidecar (its first line is the one the plan's has: the pull's own comment), so that an
     * update may write it again; one the user wrote or changed the first line of is theirs, and kept.
     */
    private static boolean pullWrote(Path sidecar, String planned) {
        try {
            String first = Files.readString(sidecar).lines().findFirst().orElse("");
            return first.startsWith("#") && first.equals(planned.lines().findFirst().orElse(""));
        } catch (IOException e) {
            return false;
        }
    }

    /** Deletes the partial downloads of these files (a failed pull that cannot be resumed leaves nothing). */
    public void discard(List<HubFile> files) {
        for (HubFile f : files) {
            try {
                Files.deleteIfExists(root.resolve(STAGING).resolve(f.digest().fileName() + ".partial"));
            } catch (IOException e) {
                // a partial that cannot be deleted is hidden and harmless; the next pull reuses it
            }
        }
        tidy();
    }

    /**
     * Removes the partial downloads no pull has written for {@code unused} (a pull given up on, a model never pulled
     * again), then the staging folder if nothing is left in it: so that abandoned gigabytes do not stay hidden for
     * good. A pull under way writes its partial all the time; one that waits to resume is not that old.
     *
     * @return the partials removed
     */
    public List<Path> pruneStale(Duration unused, Instant now) {
        Path staging = root.resolve(STAGING);
        List<Path> removed = new ArrayList<>();
        if (!Files.isDirectory(staging, LinkOption.NOFOLLOW_LINKS)) {
            return removed;
        }
        // partial downloads, and blobs sent for a model that was never created from them
        try (DirectoryStream<Path> partials = Files.newDirectoryStream(staging, "*.{partial,blob}")) {
            for (Path p : partials) {
                if (Files.isRegularFile(p, LinkOption.NOFOLLOW_LINKS)
                        && Files.getLastModifiedTime(p).toInstant().isBefore(now.minus(unused))
                        && deleteUnlocked(p)) {
                    removed.add(p);
                }
            }
        } catch (IOException e) {
            // what cannot be listed or removed stays; the next look tries again
        }
        tidy();
        return removed;
    }

    /** Deletes a partial no pull holds (a transfer locks its partial, in this process or another one). */
    private static boolean deleteUnlocked(Path partial) throws IOException {
        try (FileChannel channel = FileChannel.open(partial, StandardOpenOption.WRITE)) {
            FileLock lock;
            try {
                lock = channel.tryLock();
            } catch (OverlappingFileLockException e) {
                return false;
            }
            if (lock == null) {
                return false;
            }
            Files.delete(partial);
            lock.release();
            return true;
        }
    }

    /** Removes the staging folder when it keeps no partial download (a pull stopped before its first byte). */
    void tidy() {
        deleteEmpty(root.resolve(STAGING));
    }

    private static void deleteEmpty(Path dir) {
        try {
            Files.deleteIfExists(dir);
        } catch (IOException e) {
            // not empty: another pull is under way, or a partial is kept for a resume
        }
    }

    /**
     * Deletes one model's files: its whole folder when it is the folder's only model, else the file, the other
     * parts of a split GGUF model and its own sidecar. Symbolic links are removed, never followed.
     *
     * @return what was deleted
     */
    public List<Path> delete(Path modelFile) throws PullException {
        return files.delete(modelFile);
    }
}
