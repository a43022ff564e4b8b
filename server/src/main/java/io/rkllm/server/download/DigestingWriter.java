package io.rkllm.server.download;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.security.MessageDigest;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.atomic.AtomicReference;

/**
 * A download's bytes onto the disk as they arrive: written at once on the reading thread (so that what is on disk is
 * what a resume starts from), hashed on a thread of its own (SHA-256 runs at about the speed of a fast network: on the
 * reading thread it would halve the transfer), and flushed to the disk in the background every 32 MB (the last flush
 * then has at most that left: with 128 MB the server's pull of 1 GiB from loopback ran 2-8 % slower), so that the
 * last flush, which must come before the file may look like a model, has little left to do. A few buffers go round
 * between the two threads: the memory is the same for a megabyte or for ten gigabytes.
 *
 * <p>The disk is written in pieces of 32 KB ({@link #PIECE}), small enough that the copies each byte goes through
 * (the JDK's direct buffers on the way in and out, the page cache) stay in the CPU's first-level cache: on the
 * project's VM a server's pull of 1 GiB from loopback took 1.8-1.9 s of CPU with 32 KB pieces against 2.4 s with
 * 128 KB (the size before) and 2.2 s with 16 KB or 64 KB, and ran at 740-780 MB/s against 540-570 (medians of seven
 * pulls, two rounds each, docs/models.md); writes of 512 KB had cost 12% more than 128 KB. The digest gets a
 * whole buffer of 1 MB at a time: each hand-over wakes a thread, which on a loaded machine costs more than the
 * hashing of a small piece.
 */
final class DigestingWriter {
    static final int BUFFER = 1024 * 1024;
    static final int PIECE = 32 * 1024;
    private static final int BUFFERS = 4;
    private static final long FLUSH_EVERY = 32L << 20;

    private record Piece(byte[] bytes, int length) {
    }

    private static final Piece END = new Piece(new byte[0], -1);

    private final FileChannel channel;
    private final MessageDigest digest;
    private final BlockingQueue<byte[]> free = new ArrayBlockingQueue<>(BUFFERS);
    private final BlockingQueue<Piece> hashing = new ArrayBlockingQueue<>(BUFFERS + 1);
    private final Thread hasher;
    private final AtomicReference<IOException> flushFailed = new AtomicReference<>();
    private Thread flusher;
    private long position;
    private long sinceFlush;

    /** Writes from {@code position} on; {@code digest} has seen the bytes before it. */
    DigestingWriter(FileChannel channel, MessageDigest digest, long position) {
        this.channel = channel;
        this.digest = digest;
        this.position = position;
        for (int i = 0; i < BUFFERS; i++) {
            free.add(new byte[BUFFER]);
        }
        hasher = Thread.ofVirtual().name("rkllm-pull-digest").start(this::hash);
    }

    private void hash() {
        try {
            for (Piece p = hashing.take(); p != END; p = hashing.take()) {
                digest.update(p.bytes(), 0, p.length());
                free.add(p.bytes());
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** A buffer to read into (waits while the digest catches up). */
    byte[] buffer() throws InterruptedException {
        return free.take();
    }

    /** Writes bytes {@code from} to {@code to} of {@code buffer} (one of {@link #buffer()}) to the disk. */
    void write(byte[] buffer, int from, int to) throws IOException {
        ByteBuffer out = ByteBuffer.wrap(buffer, from, to - from);
        while (out.hasRemaining()) {
            position += channel.write(out, position);
        }
    }

    /** Hands the first {@code length} bytes of {@code buffer}, written, to the digest; the buffer comes back later. */
    void digest(byte[] buffer, int length) throws IOException, InterruptedException {
        hashing.put(new Piece(buffer, length));
        sinceFlush += length;
        if (sinceFlush >= FLUSH_EVERY && (flusher == null || !flusher.isAlive())) {
            sinceFlush = 0;
            flusher = Thread.ofVirtual().name("rkllm-pull-flush").start(() -> {
                try {
                    channel.force(false);
                } catch (IOException e) {
                    flushFailed.compareAndSet(null, e);
                }
            });
        }
    }

    /** Gives back a buffer that got nothing to write. */
    void unused(byte[] buffer) {
        free.add(buffer);
    }

    /** The bytes written so far end here. */
    long position() {
        return position;
    }

    /** Waits for the digest of every byte written and for the background flush; the digest is then complete. */
    void finish() throws IOException, InterruptedException {
        hashing.put(END);
        hasher.join();
        if (flusher != null) {
            flusher.join();
        }
        IOException failed = flushFailed.get();
        if (failed != null) {
            throw failed;
        }
    }

    /** Stops the digest's thread when the download ends short (a cut, a cancel): no byte more is hashed. */
    void abandon() {
        hasher.interrupt();
        if (flusher != null) {
            try {
                flusher.join();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
