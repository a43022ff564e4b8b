package io.rkllm.llama.gguf;

/** The value types of GGUF metadata (gguf.h's {@code gguf_type}), by their numbers in the file. */
public enum GgufValueType {
    UINT8(0, 1), INT8(1, 1), UINT16(2, 2), INT16(3, 2), UINT32(4, 4), INT32(5, 4), FLOAT32(6, 4), BOOL(7, 1),
    STRING(8, -1), ARRAY(9, -1), UINT64(10, 8), INT64(11, 8), FLOAT64(12, 8);

    private final int id;
    private final int size;

    GgufValueType(int id, int size) {
        this.id = id;
        this.size = size;
    }

    public int id() {
        return id;
    }

    /** Bytes of one value, or -1 for the variable-length types (string, array). */
    int size() {
        return size;
    }

    static GgufValueType of(int id) {
        for (GgufValueType type : values()) {
            if (type.id == id) {
                return type;
            }
        }
        throw new GgufFormatException("unknown metadata value type " + id);
    }
}
