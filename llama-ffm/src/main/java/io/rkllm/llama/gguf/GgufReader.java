package io.rkllm.llama.gguf;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Reads a GGUF file's header, metadata and tensor table in pure Java, without libllama and without reading the
 * weights: what the catalogue needs to list a model (architecture, context length, parameters, quantisation,
 * chat template), and a check that refuses a damaged or truncated file with a message instead of handing it to
 * native code. Arrays longer than {@code maxArrayElements} (a tokenizer's vocabulary) are kept as their type
 * and length only.
 */
public final class GgufReader {
    static final int MAGIC = 0x46554747; // "GGUF" little-endian
    private static final int MAX_KEY_BYTES = 1 << 16;
    private static final long MAX_STRING_BYTES = 1L << 26;
    private static final long MAX_ARRAY_ELEMENTS = 1L << 30;
    private static final long MAX_TENSORS = 1L << 20;
    private static final long MAX_KEYS = 1L << 20;
    private static final int MAX_DIMS = 4;
    static final int DEFAULT_ALIGNMENT = 32;

    private final int maxArrayElements;

    public GgufReader() {
        this(1024);
    }

    /** @param maxArrayElements longer arrays are summarised as {@link GgufArray} with no elements */
    public GgufReader(int maxArrayElements) {
        this.maxArrayElements = maxArrayElements;
    }

    /** Reads {@code path}'s header; {@link GgufFormatException} when it is not a whole, well-formed GGUF file. */
    public GgufFile read(Path path) throws IOException {
        try (FileChannel channel = FileChannel.open(path, StandardOpenOption.READ)) {
            long size = channel.size();
            Input in = new Input(channel, path);
            int magic = in.i32();
            if (magic != MAGIC) {
                throw new GgufFormatException(path + " is not a GGUF file (it starts with " + hex(magic) + ", not \"GGUF\")");
            }
            int version = in.i32();
            if (version < 2 || version > 3) {
                throw new GgufFormatException(path + " is GGUF version " + version + "; versions 2 and 3 are supported");
            }
            long tensorCount = in.count("tensor count", MAX_TENSORS);
            long keyCount = in.count("metadata key count", MAX_KEYS);
            Map<String, Object> metadata = new LinkedHashMap<>();
            for (long i = 0; i < keyCount; i++) {
                String key = in.string("metadata key", MAX_KEY_BYTES);
                GgufValueType type = in.type();
                Object value = readValue(in, type, key);
                if (metadata.put(key, value) != null) {
                    throw new GgufFormatException(path + ": metadata key " + key + " appears twice");
                }
            }
            int alignment = alignment(metadata, path);
            List<GgufTensor> tensors = new ArrayList<>((int) tensorCount);
            for (long i = 0; i < tensorCount; i++) {
                tensors.add(readTensor(in, path));
            }
            long dataOffset = align(in.position(), alignment);
            for (GgufTensor tensor : tensors) {
                checkTensor(tensor, dataOffset, size, alignment, path);
            }
            return new GgufFile(path, version, alignment, Collections.unmodifiableMap(metadata),
                    List.copyOf(tensors), dataOffset, size);
        }
    }

    private Object readValue(Input in, GgufValueType type, String key) throws IOException {
        if (type == GgufValueType.ARRAY) {
            GgufValueType elementType = in.type();
            if (elementType == GgufValueType.ARRAY) {
                throw new GgufFormatException(in.path + ": metadata " + key + " is an array of arrays");
            }
            long count = in.count("length of " + key, MAX_ARRAY_ELEMENTS);
            if (count > maxArrayElements) {
                for (long i = 0; i < count; i++) {
                    skipScalar(in, elementType, key);
                }
                return new GgufArray(elementType, count, List.of());
            }
            List<Object> values = new ArrayList<>((int) count);
            for (long i = 0; i < count; i++) {
                values.add(scalar(in, elementType, key));
            }
            return new GgufArray(elementType, count, Collections.unmodifiableList(values));
        }
        return scalar(in, type, key);
    }

    private static Object scalar(Input in, GgufValueType type, String key) throws IOException {
        return switch (type) {
            case UINT8 -> (long) (in.i8() & 0xff);
            case INT8 -> (long) in.i8();
            case UINT16 -> (long) (in.i16() & 0xffff);
            case INT16 -> (long) in.i16();
            case UINT32 -> in.i32() & 0xffffffffL;
            case INT32 -> (long) in.i32();
            case UINT64, INT64 -> in.i64();
            case FLOAT32 -> (double) Float.intBitsToFloat(in.i32());
            case FLOAT64 -> Double.longBitsToDouble(in.i64());
            case BOOL -> {
                byte b = in.i8();
                if (b != 0 && b != 1) {
                    throw new GgufFormatException(in.path + ": metadata " + key + " has a bool of value " + b);
                }
                yield b == 1;
            }
            case STRING -> in.string(key, MAX_STRING_BYTES);
            case ARRAY -> throw new GgufFormatException(in.path + ": nested array in " + key);
        };
    }

    private static void skipScalar(Input in, GgufValueType type, String key) throws IOException {
        if (type == GgufValueType.STRING) {
            long length = in.i64();
            if (length < 0 || length > MAX_STRING_BYTES) {
                throw new GgufFormatException(in.path + ": a string of " + key + " claims " + length + " bytes");
            }
            in.skip(length);
        } else {
            in.skip(type.size());
        }
    }

    private static GgufTensor readTensor(Input in, Path path) throws IOException {
        String name = in.string("tensor name", MAX_KEY_BYTES);
        int dims = in.i32();
        if (dims < 1 || dims > MAX_DIMS) {
            throw new GgufFormatException(path + ": tensor " + name + " has " + dims + " dimensions");
        }
        long[] shape = new long[dims];
        long elements = 1;
        for (int d = 0; d < dims; d++) {
            shape[d] = in.i64();
            if (shape[d] < 0 || (shape[d] != 0 && elements > Long.MAX_VALUE / 16 / shape[d])) {
                throw new GgufFormatException(path + ": tensor " + name + " has an impossible shape");
            }
            elements *= shape[d];
        }
        int typeId = in.i32();
        long offset = in.i64();
        return new GgufTensor(name, shape, typeId, TensorType.of(typeId), offset);
    }

    private static void checkTensor(GgufTensor tensor, long dataOffset, long size, int alignment, Path path) {
        if (tensor.offset() < 0 || tensor.offset() % alignment != 0) {
            throw new GgufFormatException(path + ": tensor " + tensor.name() + " starts at a misaligned offset "
                    + tensor.offset());
        }
        if (tensor.type().isEmpty()) {
            return; // a type this reader does not know: its size cannot be checked, the library will judge it
        }
        TensorType type = tensor.type().get();
        if (tensor.shape()[0] % type.blockSize() != 0) {
            throw new GgufFormatException(path + ": tensor " + tensor.name() + " has a row of " + tensor.shape()[0]
                    + " values, not a multiple of " + type + "'s block of " + type.blockSize());
        }
        long end = dataOffset + tensor.offset() + tensor.bytes().orElseThrow();
        if (end > size) {
            throw new GgufFormatException(path + " is truncated: tensor " + tensor.name() + " ends at byte " + end
                    + " but the file has " + size + " bytes");
        }
    }

    private static int alignment(Map<String, Object> metadata, Path path) {
        Object value = metadata.get("general.alignment");
        if (value == null) {
            return DEFAULT_ALIGNMENT;
        }
        if (!(value instanceof Long n) || n <= 0 || n > 1 << 20 || Long.bitCount(n) != 1) {
            throw new GgufFormatException(path + ": general.alignment is " + value + ", not a power of two");
        }
        return (int) (long) n;
    }

    static long align(long offset, int alignment) {
        return (offset + alignment - 1) / alignment * alignment;
    }

    private static String hex(int magic) {
        return String.format("0x%08x", magic);
    }

    /** Buffered little-endian reads that name the byte where a file ends too early. */
    private static final class Input {
        private final FileChannel channel;
        private final Path path;
        private final ByteBuffer buffer = ByteBuffer.allocate(1 << 16).order(ByteOrder.LITTLE_ENDIAN);
        private long bufferStart;

        Input(FileChannel channel, Path path) {
            this.channel = channel;
            this.path = path;
            buffer.limit(0);
        }

        long position() {
            return bufferStart + buffer.position();
        }

        private void need(int bytes) throws IOException {
            if (buffer.remaining() >= bytes) {
                return;
            }
            long position = position();
            buffer.compact();
            bufferStart = position - buffer.position();
            while (buffer.position() < bytes) {
                int read = channel.read(buffer);
                if (read < 0) {
                    throw truncated(position, bytes);
                }
            }
            buffer.flip();
        }

        private GgufFormatException truncated(long position, long bytes) throws IOException {
            return new GgufFormatException(path + " is truncated: " + bytes + " more bytes needed at byte " + position
                    + " but the file has " + channel.size() + " bytes");
        }

        byte i8() throws IOException {
            need(1);
            return buffer.get();
        }

        short i16() throws IOException {
            need(2);
            return buffer.getShort();
        }

        int i32() throws IOException {
            need(4);
            return buffer.getInt();
        }

        long i64() throws IOException {
            need(8);
            return buffer.getLong();
        }

        void skip(long bytes) throws IOException {
            long position = position();
            if (position + bytes > channel.size()) {
                throw truncated(position, bytes);
            }
            if (buffer.remaining() >= bytes) {
                buffer.position(buffer.position() + (int) bytes);
                return;
            }
            bufferStart = position + bytes;
            buffer.clear().limit(0);
            channel.position(bufferStart);
        }

        long count(String what, long max) throws IOException {
            long value = i64();
            if (value < 0 || value > max) {
                throw new GgufFormatException(path + ": the " + what + " is " + Long.toUnsignedString(value)
                        + " (at most " + max + " expected): a damaged file");
            }
            return value;
        }

        GgufValueType type() throws IOException {
            int id = i32();
            try {
                return GgufValueType.of(id);
            } catch (GgufFormatException e) {
                throw new GgufFormatException(path + ": unknown metadata value type " + id + " at byte "
                        + (position() - 4) + ": a damaged file");
            }
        }

        String string(String what, long max) throws IOException {
            long length = i64();
            if (length < 0 || length > max) {
                throw new GgufFormatException(path + ": the " + what + " at byte " + (position() - 8) + " claims "
                        + Long.toUnsignedString(length) + " bytes: a damaged file");
            }
            byte[] bytes = new byte[(int) length];
            int done = 0;
            while (done < bytes.length) {
                need(1);
                int n = Math.min(buffer.remaining(), bytes.length - done);
                buffer.get(bytes, done, n);
                done += n;
            }
            try {
                return StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                        .onUnmappableCharacter(CodingErrorAction.REPORT).decode(ByteBuffer.wrap(bytes)).toString();
            } catch (CharacterCodingException e) {
                // vocabularies may hold byte pieces that are not UTF-8 on their own: keep them, replaced
                return new String(bytes, StandardCharsets.UTF_8);
            }
        }
    }
}
