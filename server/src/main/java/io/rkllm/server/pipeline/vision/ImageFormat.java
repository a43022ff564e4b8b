package io.rkllm.server.pipeline.vision;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Optional;

/** The picture formats the server reads, told by their first bytes (a client's media type is not trusted). */
enum ImageFormat {
    JPEG("jpeg"),
    PNG("png"),
    GIF("gif"),
    WEBP("webp");

    /** The name ImageIO finds the format's reader by. */
    final String readerName;

    ImageFormat(String readerName) {
        this.readerName = readerName;
    }

    static Optional<ImageFormat> detect(byte[] b) {
        if (starts(b, 0, 0xFF, 0xD8, 0xFF)) {
            return Optional.of(JPEG);
        }
        if (starts(b, 0, 0x89, 'P', 'N', 'G', 0x0D, 0x0A, 0x1A, 0x0A)) {
            return Optional.of(PNG);
        }
        if (ascii(b, 0, "GIF87a") || ascii(b, 0, "GIF89a")) {
            return Optional.of(GIF);
        }
        if (ascii(b, 0, "RIFF") && ascii(b, 8, "WEBP")) {
            return Optional.of(WEBP);
        }
        return Optional.empty();
    }

    /** What an unreadable picture seems to be, for the error message. */
    static String guess(byte[] b) {
        if (ascii(b, 4, "ftypheic") || ascii(b, 4, "ftypheix") || ascii(b, 4, "ftypmif1") || ascii(b, 4, "ftyphevc")) {
            return "a HEIC picture (an iPhone photo?)";
        }
        if (ascii(b, 4, "ftypavif")) {
            return "an AVIF picture";
        }
        if (ascii(b, 0, "BM")) {
            return "a BMP picture";
        }
        if (starts(b, 0, 'I', 'I', 0x2A, 0) || starts(b, 0, 'M', 'M', 0, 0x2A)) {
            return "a TIFF picture";
        }
        String head = new String(Arrays.copyOf(b, Math.min(b.length, 256)), StandardCharsets.ISO_8859_1).strip();
        if (head.startsWith("<svg") || head.startsWith("<?xml")) {
            return "an SVG drawing";
        }
        return "not a picture this server knows";
    }

    private static boolean starts(byte[] b, int at, int... values) {
        if (b.length < at + values.length) {
            return false;
        }
        for (int i = 0; i < values.length; i++) {
            if ((b[at + i] & 0xFF) != values[i]) {
                return false;
            }
        }
        return true;
    }

    private static boolean ascii(byte[] b, int at, String text) {
        return starts(b, at, text.chars().toArray());
    }
}
