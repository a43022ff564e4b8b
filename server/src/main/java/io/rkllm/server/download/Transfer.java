package io.rkllm.server.download;

import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.FileTime;
import java.security.MessageDigest;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One file from the Hub into its partial download, in constant memory: what the partial already holds is kept
 * (its bytes hashed again, the rest asked for with a {@code Range} request), the bytes are hashed as they are
 * written ({@link DigestingWriter}), a transfer that is cut or stalls, or whose request finds the Hub out of reach or
 * busy ({@link HubUnavailable}: a network that is down for a moment, a 503), is resumed from where it stopped a few
 * times, and the whole file must have the digest the Hub publishes before it is flushed to the disk and handed on. A
 * file that does not is deleted; a transfer given up on keeps its partial, so that the next pull resumes it. The
 * partial is locked while it is written: two pulls never write one file.
 */
final class Transfer {
    private static final Logger LOG = LoggerFactory.getLogger(Transfer.class);

    /**
     * @param attempts     requests per file before a transfer that is cut or finds the Hub out of reach is given up on
     * @param retryDelay   the pause before asking again (doubled each time; see {@link Backoff})
     * @param stallTimeout a transfer that gets no byte for this long is cut and resumed
     */
    record Settings(int attempts, Duration retryDelay, Duration stallTimeout) {
        static final Settings DEFAULT = new Settings(4, Duration.ofSeconds(2), Duration.ofSeconds(60));
    }

    /** How a partial download is opened for reading and writing: the file system's, or a test's disk that fills up. */
    @FunctionalInterface
    interface Opener {
        Opener FILE_SYSTEM = partial -> FileChannel.open(partial, StandardOpenOption.CREATE, StandardOpenOption.READ,
                StandardOpenOption.WRITE);

        FileChannel open(Path partial) throws IOException;
    }

    private final Settings settings;
    private final Opener opener;

    Transfer(Settings settings, Opener opener) {
        this.settings = settings;
        this.opener = opener;
    }

    /** Where a file's bytes come from: the Hub (through its resolve redirect) or an Ollama registry (its blobs). */
    @FunctionalInterface
    interface Source {
        /** The file's bytes from {@code offset} (or from 0: {@link HubClient.Body#start()} says). */
        HubClient.Body open(HubFile file, long offset) throws PullException, HubUnavailable;
    }

    /** Where a file's download stands: bytes on disk, bytes read from the Hub, the digest so far. */
    private static final class State {
        long have;
        long downloaded;
        MessageDigest digest;
    }

    /**
     * Downloads {@code file} into {@code partial} and verifies it.
     *
     * @return the bytes read from the Hub
     */
    long fetch(Source source, HubFile file, Path partial, PullProgress progress)
            throws PullException {
        try {
            // the staging folder may have been tidied away, empty, since the plan named the partial
            Files.createDirectories(partial.getParent());
        } catch (IOException e) {
            throw storage(partial.getParent(), e);
        }
        try (FileChannel channel = opener.open(partial)) {
            FileLock lock = lock(channel, file);
            try {
                // in use again: a prune of partials no pull wrote for days must not take it while it is re-hashed
                Files.setLastModifiedTime(partial, FileTime.from(Instant.now()));
                State s = new State();
                s.digest = file.digest().start(file.size());
                s.have = channel.size();
                if (s.have > file.size()) {
                    channel.truncate(0);
                    s.have = 0;
                }
                if (s.have > 0) {
                    progress.verifying(file);
                    hashPrefix(channel, s);
                    LOG.info("resuming {} at {} of {} bytes", file.path(), s.have, file.size());
                }
                progress.transfer(file, s.have);
                Backoff backoff = new Backoff(settings.retryDelay());
                for (int attempt = 1; s.have < file.size(); attempt++) {
                    IOException cut = null;
                    HubUnavailable unavailable = null;
                    try (HubClient.Body body = source.open(file, s.have)) {
                        if (body.start() != s.have) {
                            channel.truncate(0);
                            s.have = 0;
                            s.digest = file.digest().start(file.size());
                        }
                        cut = copy(body.stream(), channel, s, file, progress);
                    } catch (HubUnavailable e) {
                        // a network that dropped or a busy Hub may be back by the next attempt: as a cut
                        unavailable = e;
                    }
                    if (cut == null && unavailable == null) {
                        break;
                    }
                    if (attempt >= settings.attempts()) {
                        if (cut != null) {
                            throw PullException.resumable(PullException.Kind.BAD_GATEWAY, "the transfer of "
                                    + file.path() + " was cut at " + s.have + " of " + file.size() + " bytes, "
                                    + attempt + " times (" + describe(cut) + "); pull again to resume from there");
                        }
                        throw unreachable(file, s, attempt, unavailable, lock, channel, partial);
                    }
                    String why = cut != null ? describe(cut) : unavailable.getMessage();
                    LOG.info("the transfer of {} stopped at {} of {} bytes ({}); resuming", file.path(), s.have,
                            file.size(), why);
                    Duration wait = backoff.next(unavailable == null ? Optional.empty() : unavailable.retryAfter());
                    progress.stopped(file, s.have, why, wait);
                    pause(wait);
                }
                if (!file.digest().matches(s.digest)) {
                    lock.release();
                    channel.close();
                    Files.deleteIfExists(partial);
                    throw new PullException(PullException.Kind.BAD_GATEWAY, file.path() + ": the downloaded bytes do"
                            + " not have the digest the Hub publishes (" + file.digest().label() + "); they were"
                            + " removed, nothing was installed: pull again");
                }
                channel.force(true);
                return s.downloaded;
            } finally {
                if (lock.isValid()) {
                    lock.release();
                }
            }
        } catch (IOException e) {
            throw storage(partial, e);
        }
    }

    /**
     * The transfer given up on because the Hub stayed out of reach: what was downloaded is kept for the next pull
     * (resumable, so that the files this pull completed before are kept too); an empty partial, of a transfer that
     * never started, is removed.
     */
    private static PullException unreachable(HubFile file, State s, int attempts, HubUnavailable why, FileLock lock,
                                             FileChannel channel, Path partial) throws IOException {
        if (s.have == 0) {
            lock.release();
            channel.close();
            Files.deleteIfExists(partial);
            return PullException.resumable(PullException.Kind.BAD_GATEWAY, "the transfer of " + file.path()
                    + " could not start, " + attempts + " attempts (" + why.getMessage() + "); pull again later");
        }
        return PullException.resumable(PullException.Kind.BAD_GATEWAY, "the transfer of " + file.path()
                + " stopped at " + s.have + " of " + file.size() + " bytes and could not be resumed, " + attempts
                + " attempts (" + why.getMessage() + "); the bytes downloaded are kept, and the next pull resumes"
                + " from there");
    }

    private static FileLock lock(FileChannel channel, HubFile file) throws IOException, PullException {
        FileLock lock;
        try {
            lock = channel.tryLock();
        } catch (OverlappingFileLockException e) {
            lock = null;
        }
        if (lock == null) {
            // resumable: the partials are the other pull's, and must not be discarded with this one
            throw PullException.resumable(PullException.Kind.CONFLICT, file.path() + " is being downloaded by"
                    + " another pull right now; wait for it to finish");
        }
        return lock;
    }

    /** The digest of what an earlier attempt left, read back from the disk. */
    private static void hashPrefix(FileChannel channel, State s) throws IOException {
        ByteBuffer buffer = ByteBuffer.allocate(DigestingWriter.BUFFER);
        long at = 0;
        while (at < s.have) {
            buffer.clear().limit((int) Math.min(DigestingWriter.BUFFER, s.have - at));
            int n = channel.read(buffer, at);
            if (n < 0) {
                break;
            }
            s.digest.update(buffer.array(), 0, n);
            at += n;
        }
    }

    /**
     * Copies the body to the file; null when the file is complete, else why the transfer stopped short (the bytes that
     * arrived before are kept: the resume asks for the rest only). A write that fails (a full disk) throws.
     */
    private static IOException copy(InputStream in, FileChannel channel, State s, HubFile file, PullProgress progress)
            throws PullException, IOException {
        DigestingWriter writer = new DigestingWriter(channel, s.digest, s.have);
        boolean complete = false;
        try {
            while (s.have < file.size()) {
                byte[] buffer = writer.buffer();
                int want = (int) Math.min(buffer.length, file.size() - s.have);
                int filled = 0;
                int written = 0;
                IOException cut = null;
                while (filled < want) {
                    int n;
                    try {
                        // up to the end of the piece being filled, which is written as soon as it is full
                        n = in.read(buffer, filled, Math.min(want, written + DigestingWriter.PIECE) - filled);
                    } catch (IOException e) {
                        cut = e;
                        break;
                    }
                    if (n < 0) {
                        cut = new EOFException("the connection ended early");
                        break;
                    }
                    filled += n;
                    if (filled - written == DigestingWriter.PIECE || filled == want) {
                        written = written(writer, buffer, written, filled, s, file, progress);
                    }
                }
                if (filled > written) {
                    written(writer, buffer, written, filled, s, file, progress);
                }
                if (filled > 0) {
                    writer.digest(buffer, filled);
                } else {
                    writer.unused(buffer);
                }
                if (cut != null) {
                    writer.finish();
                    complete = true;
                    return cut;
                }
            }
            writer.finish();
            complete = true;
            return null;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new PullException(PullException.Kind.CANCELLED, "the pull was interrupted");
        } finally {
            if (!complete) {
                writer.abandon();
            }
        }
    }

    /** Writes bytes {@code from} to {@code to} of the buffer, counts them and reports them; returns {@code to}. */
    private static int written(DigestingWriter writer, byte[] buffer, int from, int to, State s, HubFile file,
                               PullProgress progress) throws IOException, PullException {
        writer.write(buffer, from, to);
        s.have += to - from;
        s.downloaded += to - from;
        progress.transfer(file, s.have);
        return to;
    }

    private static String describe(IOException e) {
        return e.getMessage() == null || e.getMessage().isBlank() ? e.getClass().getSimpleName() : e.getMessage();
    }

    private static void pause(Duration delay) throws PullException {
        try {
            Thread.sleep(delay);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new PullException(PullException.Kind.CANCELLED, "the pull was interrupted");
        }
    }

    /** A write that failed: the disk is full (the partial is deleted: its space is what is missing) or not writable. */
    static PullException storage(Path file, IOException e) {
        String why = describe(e);
        if (why.contains("No space left") || why.contains("Disk quota exceeded")) {
            try {
                Files.deleteIfExists(file);
            } catch (IOException ignored) {
                // the message below says what happened either way
            }
            return new PullException(PullException.Kind.INSUFFICIENT_STORAGE, "the disk of " + file.getParent()
                    + " is full (" + why + "); the partial download was removed: free some space and pull again", e);
        }
        return new PullException(PullException.Kind.INSUFFICIENT_STORAGE, "cannot write " + file + ": " + why, e);
    }
}
