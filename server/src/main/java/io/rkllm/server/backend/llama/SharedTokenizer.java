package io.rkllm.server.backend.llama;

import io.rkllm.llama.LlamaModel;
import io.rkllm.server.engine.contract.ModelTokenizer;
import java.util.concurrent.locks.ReadWriteLock;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import java.util.function.Supplier;

/**
 * A loaded model's vocabulary lent to any thread, as llama-server's HTTP threads tokenize while its loop decodes
 * (llama.cpp's vocabulary is read-only once loaded). The lock is what keeps the model's memory alive under a call:
 * the model is freed only after {@link #close()}, which waits for the calls under way and refuses later ones.
 */
final class SharedTokenizer implements ModelTokenizer {
    private final String id;
    private final LlamaModel model;
    private final ReadWriteLock lock = new ReentrantReadWriteLock();
    private boolean closed;

    SharedTokenizer(String id, LlamaModel model) {
        this.id = id;
        this.model = model;
    }

    @Override
    public int[] tokenize(String text, boolean addSpecial, boolean parseSpecial) {
        return whileOpen(() -> model.tokenize(text, addSpecial, parseSpecial));
    }

    @Override
    public byte[] piece(int token) {
        return whileOpen(() -> model.tokenToPiece(token, true));
    }

    @Override
    public int vocabularySize() {
        return whileOpen(model::vocabularySize);
    }

    private <T> T whileOpen(Supplier<T> call) {
        lock.readLock().lock();
        try {
            if (closed) {
                throw new Unloaded(id);
            }
            return call.get();
        } finally {
            lock.readLock().unlock();
        }
    }

    /** No call after this one; returns once the calls under way have returned. Before the model is freed. */
    void close() {
        lock.writeLock().lock();
        try {
            closed = true;
        } finally {
            lock.writeLock().unlock();
        }
    }
}
