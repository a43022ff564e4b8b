package io.rkllm.server.http.webui;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Base64;
import java.util.Optional;
import java.util.zip.GZIPOutputStream;

/**
 * One file of the page as it is served: its bytes, their gzip form when that is smaller (text), and a validator
 * per form. The forms are different representations, so each has its own ETag.
 *
 * @param gzip the compressed bytes, absent when compressing does not pay (pictures, tiny files)
 */
record Asset(String contentType, byte[] bytes, Optional<byte[]> gzip, String etag, String gzipEtag) {

    static Asset of(String contentType, byte[] bytes) {
        String digest = digest(bytes);
        Optional<byte[]> compressed = Optional.empty();
        if (compressible(contentType)) {
            byte[] gz = gzip(bytes);
            // below a few hundred bytes the header costs more than it saves
            if (gz.length < bytes.length * 0.9) {
                compressed = Optional.of(gz);
            }
        }
        return new Asset(contentType, bytes, compressed, "\"" + digest + "\"", "\"" + digest + "-gz\"");
    }

    private static boolean compressible(String contentType) {
        return contentType.startsWith("text/") || contentType.startsWith("application/javascript")
                || contentType.startsWith("image/svg+xml") || contentType.startsWith("application/json");
    }

    private static byte[] gzip(byte[] bytes) {
        var out = new ByteArrayOutputStream(bytes.length / 3 + 64);
        try (var gz = new GZIPOutputStream(out) {
            {
                def.setLevel(java.util.zip.Deflater.BEST_COMPRESSION);
            }
        }) {
            gz.write(bytes);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return out.toByteArray();
    }

    private static String digest(byte[] bytes) {
        try {
            byte[] sha = MessageDigest.getInstance("SHA-256").digest(bytes);
            return Base64.getUrlEncoder().withoutPadding().encodeToString(sha).substring(0, 22);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
