package io.rkllm.llama.gguf;

import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * Writes a GGUF (version 3) file: metadata in the order added, then the tensor table, then each tensor's data
 * aligned to 32 bytes. Small files only (everything is held in memory): test and demonstration models.
 */
public final class GgufWriter {
    private record Entry(String key, GgufValueType type, Object value) {
    }

    private record Tensor(String name, long[] shape, TensorType type, byte[] data) {
    }

    private final List<Entry> metadata = new ArrayList<>();
    private final List<Tensor> tensors = new ArrayList<>();
    private final Set<String> names = new LinkedHashSet<>();

    public GgufWriter putString(String key, String value) {
        return put(key, GgufValueType.STRING, value);
    }

    public GgufWriter putUint16(String key, int value) {
        return put(key, GgufValueType.UINT16, (long) value);
    }

    public GgufWriter putUint32(String key, long value) {
        return put(key, GgufValueType.UINT32, value);
    }

    public GgufWriter putInt32(String key, int value) {
        return put(key, GgufValueType.INT32, (long) value);
    }

    public GgufWriter putUint64(String key, long value) {
        return put(key, GgufValueType.UINT64, value);
    }

    public GgufWriter putFloat32(String key, float value) {
        return put(key, GgufValueType.FLOAT32, (double) value);
    }

    public GgufWriter putBool(String key, boolean value) {
        return put(key, GgufValueType.BOOL, value);
    }

    public GgufWriter putStrings(String key, List<String> values) {
        return put(key, GgufValueType.ARRAY, new GgufArray(GgufValueType.STRING, values.size(), List.copyOf(values)));
    }

    public GgufWriter putInt32s(String key, int[] values) {
        List<Object> boxed = new ArrayList<>(values.length);
        for (int v : values) {
            boxed.add((long) v);
        }
        return put(key, GgufValueType.ARRAY, new GgufArray(GgufValueType.INT32, values.length, boxed));
    }

    public GgufWriter putFloat32s(String key, float[] values) {
        List<Object> boxed = new ArrayList<>(values.length);
        for (float v : values) {
            boxed.add((double) v);
        }
        return put(key, GgufValueType.ARRAY, new GgufArray(GgufValueType.FLOAT32, values.length, boxed));
    }

    private GgufWriter put(String key, GgufValueType type, Object value) {
        if (metadata.stream().anyMatch(e -> e.key.equals(key))) {
            throw new IllegalArgumentException("metadata key " + key + " added twice");
        }
        metadata.add(new Entry(key, type, value));
        return this;
    }

    /**
     * Adds a tensor of {@code values} stored as F32 or F16; {@code shape} in ggml order (the first dimension is
     * the contiguous one).
     */
    public GgufWriter addTensor(String name, long[] shape, TensorType type, float[] values) {
        long elements = 1;
        for (long d : shape) {
            elements *= d;
        }
        if (elements != values.length) {
            throw new IllegalArgumentException(name + ": shape holds " + elements + " values, " + values.length + " given");
        }
        if (!names.add(name)) {
            throw new IllegalArgumentException("tensor " + name + " added twice");
        }
        ByteBuffer data = ByteBuffer.allocate((int) type.bytes(elements)).order(ByteOrder.LITTLE_ENDIAN);
        switch (type) {
            case F32 -> {
                for (float v : values) {
                    data.putFloat(v);
                }
            }
            case F16 -> {
                for (float v : values) {
                    data.putShort(Float.floatToFloat16(v));
                }
            }
            default -> throw new IllegalArgumentException("only F32 and F16 tensors can be written, not " + type);
        }
        tensors.add(new Tensor(name, shape.clone(), type, data.array()));
        return this;
    }

    /** Leaves tensor {@code name} out of the file (broken models for tests of refusals). */
    public GgufWriter dropTensor(String name) {
        if (!names.remove(name) || !tensors.removeIf(t -> t.name().equals(name))) {
            throw new IllegalArgumentException("no tensor " + name);
        }
        return this;
    }

    public void write(Path path) throws IOException {
        write(path, metadata, tensors);
    }

    /**
     * Writes the model split into {@code parts} files as llama.cpp's {@code gguf-split} does:
     * {@code PREFIX-00001-of-0000N.gguf} with the metadata and the first tensors, then the other parts with theirs,
     * each part saying its number ({@code split.no}), the count ({@code split.count}) and the tensors of all
     * ({@code split.tensors.count}). llama.cpp loads the model through the first part.
     *
     * @return the parts, the first first
     */
    public List<Path> writeSplit(Path directory, String prefix, int parts) throws IOException {
        if (parts < 2 || parts > tensors.size()) {
            throw new IllegalArgumentException("a model of " + tensors.size() + " tensors cannot be split in " + parts);
        }
        List<Path> files = new ArrayList<>();
        int from = 0;
        for (int part = 0; part < parts; part++) {
            int to = (int) ((long) tensors.size() * (part + 1) / parts);
            List<Entry> keys = new ArrayList<>(part == 0 ? metadata : List.of());
            keys.add(new Entry("split.no", GgufValueType.UINT16, (long) part));
            keys.add(new Entry("split.count", GgufValueType.UINT16, (long) parts));
            keys.add(new Entry("split.tensors.count", GgufValueType.INT32, (long) tensors.size()));
            Path file = directory.resolve(String.format(Locale.ROOT, "%s-%05d-of-%05d.gguf", prefix, part + 1, parts));
            write(file, keys, tensors.subList(from, to));
            files.add(file);
            from = to;
        }
        return files;
    }

    private static void write(Path path, List<Entry> metadata, List<Tensor> tensors) throws IOException {
        try (OutputStream out = new BufferedOutputStream(Files.newOutputStream(path), 1 << 16)) {
            Output o = new Output(out);
            o.i32(GgufReader.MAGIC);
            o.i32(3);
            o.i64(tensors.size());
            o.i64(metadata.size());
            for (Entry entry : metadata) {
                o.string(entry.key);
                o.i32(entry.type.id());
                if (entry.value instanceof GgufArray array) {
                    o.i32(array.elementType().id());
                    o.i64(array.length());
                    for (Object element : array.values()) {
                        o.scalar(array.elementType(), element);
                    }
                } else {
                    o.scalar(entry.type, entry.value);
                }
            }
            long offset = 0;
            for (Tensor tensor : tensors) {
                o.string(tensor.name);
                o.i32(tensor.shape.length);
                for (long d : tensor.shape) {
                    o.i64(d);
                }
                o.i32(tensor.type.id());
                o.i64(offset);
                offset = GgufReader.align(offset + tensor.data.length, GgufReader.DEFAULT_ALIGNMENT);
            }
            o.pad(GgufReader.DEFAULT_ALIGNMENT);
            for (Tensor tensor : tensors) {
                o.bytes(tensor.data);
                o.pad(GgufReader.DEFAULT_ALIGNMENT);
            }
        }
    }

    private static final class Output {
        private final OutputStream out;
        private final ByteBuffer scratch = ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN);
        private long written;

        Output(OutputStream out) {
            this.out = out;
        }

        void bytes(byte[] b) throws IOException {
            out.write(b);
            written += b.length;
        }

        private void flushScratch() throws IOException {
            bytes(java.util.Arrays.copyOf(scratch.array(), scratch.position()));
            scratch.clear();
        }

        void i8(int v) throws IOException {
            scratch.put((byte) v);
            flushScratch();
        }

        void i16(int v) throws IOException {
            scratch.putShort((short) v);
            flushScratch();
        }

        void i32(int v) throws IOException {
            scratch.putInt(v);
            flushScratch();
        }

        void i64(long v) throws IOException {
            scratch.putLong(v);
            flushScratch();
        }

        void string(String s) throws IOException {
            byte[] b = s.getBytes(StandardCharsets.UTF_8);
            i64(b.length);
            bytes(b);
        }

        void scalar(GgufValueType type, Object value) throws IOException {
            switch (type) {
                case UINT8, INT8 -> i8((int) (long) (Long) value);
                case UINT16, INT16 -> i16((int) (long) (Long) value);
                case UINT32, INT32 -> i32((int) (long) (Long) value);
                case UINT64, INT64 -> i64((Long) value);
                case FLOAT32 -> i32(Float.floatToRawIntBits((float) (double) (Double) value));
                case FLOAT64 -> i64(Double.doubleToRawLongBits((Double) value));
                case BOOL -> i8((Boolean) value ? 1 : 0);
                case STRING -> string((String) value);
                case ARRAY -> throw new IllegalArgumentException("nested arrays are not written");
            }
        }

        void pad(int alignment) throws IOException {
            long target = GgufReader.align(written, alignment);
            bytes(new byte[(int) (target - written)]);
        }
    }
}
