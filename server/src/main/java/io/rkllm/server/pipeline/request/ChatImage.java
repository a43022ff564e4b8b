package io.rkllm.server.pipeline.request;

import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Objects;

/**
 * A picture attached to a message, as the client sent it (still encoded: JPEG, PNG, ...), named by the SHA-256
 * of its bytes: a client that resends the picture every turn (Open WebUI does) sends the same digest, which is
 * what the embedding cache and the KV cache policy recognise it by.
 *
 * @param param where in the request it was, for error messages ({@code messages[2].content[1]})
 */
public record ChatImage(byte[] data, String digest, String param) {

    public ChatImage {
        Objects.requireNonNull(data, "data");
        Objects.requireNonNull(digest, "digest");
        Objects.requireNonNull(param, "param");
    }

    public static ChatImage of(byte[] data, String param) {
        try {
            return new ChatImage(data, HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(data)),
                    param);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof ChatImage other && digest.equals(other.digest) && param.equals(other.param);
    }

    @Override
    public int hashCode() {
        return digest.hashCode();
    }

    @Override
    public String toString() {
        return "ChatImage[" + data.length + " bytes, " + digest.substring(0, 12) + ", " + param + "]";
    }
}
