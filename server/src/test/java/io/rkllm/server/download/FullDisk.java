package io.rkllm.server.download;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.ReadableByteChannel;
import java.nio.channels.WritableByteChannel;
import java.nio.file.Path;

/**
 * Partial downloads on a disk that fills up: each file takes {@code room} bytes, then a write stops short and the next
 * fails as Linux's do ({@code No space left on device}); everything else is the real file's.
 */
final class FullDisk implements Transfer.Opener {
    private final long room;

    FullDisk(long room) {
        this.room = room;
    }

    @Override
    public FileChannel open(Path partial) throws IOException {
        return new Filling(FILE_SYSTEM.open(partial), room);
    }

    private static final class Filling extends FileChannel {
        private final FileChannel file;
        private long left;

        Filling(FileChannel file, long room) {
            this.file = file;
            this.left = room;
        }

        /** The bytes of {@code src} that still fit: all, some (a short write) or none (the error). */
        private ByteBuffer fitting(ByteBuffer src) throws IOException {
            if (left <= 0 && src.hasRemaining()) {
                throw new IOException("No space left on device");
            }
            return src.remaining() <= left ? src : src.slice().limit((int) left);
        }

        private int wrote(ByteBuffer src, ByteBuffer fit, int n) {
            if (fit != src) {
                src.position(src.position() + n);
            }
            left -= n;
            return n;
        }

        @Override
        public int write(ByteBuffer src, long position) throws IOException {
            ByteBuffer fit = fitting(src);
            return wrote(src, fit, file.write(fit, position));
        }

        @Override
        public int write(ByteBuffer src) throws IOException {
            ByteBuffer fit = fitting(src);
            return wrote(src, fit, file.write(fit));
        }

        @Override
        public long write(ByteBuffer[] srcs, int offset, int length) throws IOException {
            long n = 0;
            for (int i = offset; i < offset + length; i++) {
                n += write(srcs[i]);
            }
            return n;
        }

        @Override
        public long transferFrom(ReadableByteChannel src, long position, long count) {
            throw new UnsupportedOperationException("not used by a transfer");
        }

        @Override
        public int read(ByteBuffer dst) throws IOException {
            return file.read(dst);
        }

        @Override
        public long read(ByteBuffer[] dsts, int offset, int length) throws IOException {
            return file.read(dsts, offset, length);
        }

        @Override
        public int read(ByteBuffer dst, long position) throws IOException {
            return file.read(dst, position);
        }

        @Override
        public long position() throws IOException {
            return file.position();
        }

        @Override
        public FileChannel position(long newPosition) throws IOException {
            file.position(newPosition);
            return this;
        }

        @Override
        public long size() throws IOException {
            return file.size();
        }

        @Override
        public FileChannel truncate(long size) throws IOException {
            file.truncate(size);
            return this;
        }

        @Override
        public void force(boolean metaData) throws IOException {
            file.force(metaData);
        }

        @Override
        public long transferTo(long position, long count, WritableByteChannel target) throws IOException {
            return file.transferTo(position, count, target);
        }

        @Override
        public MappedByteBuffer map(MapMode mode, long position, long size) {
            throw new UnsupportedOperationException("not used by a transfer");
        }

        @Override
        public FileLock lock(long position, long size, boolean shared) throws IOException {
            return file.lock(position, size, shared);
        }

        @Override
        public FileLock tryLock(long position, long size, boolean shared) throws IOException {
            return file.tryLock(position, size, shared);
        }

        @Override
        protected void implCloseChannel() throws IOException {
            file.close();
        }
    }
}
