package io.rkllm.ffm.rknn;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** The simulated RKNN runtime the build compiled, and simulated encoder model files for tests. */
public final class RknnSim {
    private static final ObjectMapper JSON = new ObjectMapper();

    private RknnSim() {
    }

    public static Path library() {
        return Path.of(System.getProperty("rkllm.sim.dir", "target/sim")).resolve("librknnrt.so");
    }

    public static RknnRuntime runtime() {
        return RknnRuntime.open(library());
    }

    /** An encoder at zero delay with a trace file next to it; {@code extra} overrides keys. */
    public static Path encoder(Path dir, String name, Map<String, String> extra) {
        Map<String, String> keys = new LinkedHashMap<>();
        keys.put("name", name);
        keys.put("time_scale", "0");
        keys.put("trace", trace(dir.resolve(name + ".rknn")).toString());
        keys.putAll(extra);
        StringBuilder text = new StringBuilder("#rknn-sim 1\n");
        keys.forEach((k, v) -> text.append(k).append(": ").append(v).append('\n'));
        Path file = dir.resolve(name + ".rknn");
        try {
            Files.writeString(file, text);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return file;
    }

    static Path trace(Path encoderFile) {
        return encoderFile.resolveSibling(encoderFile.getFileName().toString().replace(".rknn", ".rknn-trace.jsonl"));
    }

    public static List<JsonNode> calls(Path encoderFile, String call) {
        List<JsonNode> lines = new ArrayList<>();
        try {
            Path trace = trace(encoderFile);
            if (Files.exists(trace)) {
                for (String line : Files.readAllLines(trace)) {
                    JsonNode node = JSON.readTree(line);
                    if (node.path("call").asText().equals(call)) {
                        lines.add(node);
                    }
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return lines;
    }

    /** FNV-1a 64 as the simulators' traces write it (16 hex digits). */
    public static String digest(byte[] bytes) {
        long hash = 0xcbf29ce484222325L;
        for (byte b : bytes) {
            hash ^= b & 0xff;
            hash *= 0x100000001b3L;
        }
        return HexFormat.of().toHexDigits(hash);
    }

    /** The digest of floats' little-endian bytes. */
    public static String digest(float[] values) {
        ByteBuffer bytes = ByteBuffer.allocate(values.length * Float.BYTES).order(ByteOrder.LITTLE_ENDIAN);
        bytes.asFloatBuffer().put(values);
        return digest(bytes.array());
    }

    /** A width x height RGB picture: every pixel (r, g, b). */
    public static byte[] solid(int width, int height, int r, int g, int b) {
        byte[] rgb = new byte[width * height * 3];
        for (int i = 0; i < rgb.length; i += 3) {
            rgb[i] = (byte) r;
            rgb[i + 1] = (byte) g;
            rgb[i + 2] = (byte) b;
        }
        return rgb;
    }
}
