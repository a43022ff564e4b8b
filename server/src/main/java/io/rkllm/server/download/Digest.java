package io.rkllm.server.download;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Locale;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * The digest the Hub publishes for a file: the SHA-256 of a file kept in Git LFS (every model file), or, for a small
 * file kept in Git itself, the Git blob id (SHA-1 of {@code "blob <size>\0"} and the bytes).
 *
 * @param kind which of the two
 * @param hex  the digest in lower-case hexadecimal
 */
public record Digest(Kind kind, String hex) {
    private static final Pattern SHA256 = Pattern.compile("[0-9a-f]{64}");
    private static final Pattern SHA1 = Pattern.compile("[0-9a-f]{40}");

    /** The two digests the Hub gives. */
    public enum Kind {
        SHA256("sha256", "SHA-256"), GIT_SHA1("sha1", "SHA-1");

        private final String label;
        private final String algorithm;

        Kind(String label, String algorithm) {
            this.label = label;
            this.algorithm = algorithm;
        }
    }

    public Digest {
        hex = hex.toLowerCase(Locale.ROOT);
        if (!(kind == Kind.SHA256 ? SHA256 : SHA1).matcher(hex).matches()) {
            throw new IllegalArgumentException("not a " + kind.label + " digest: " + hex);
        }
    }

    public static Digest sha256(String hex) {
        return new Digest(Kind.SHA256, hex);
    }

    public static Digest gitBlob(String hex) {
        return new Digest(Kind.GIT_SHA1, hex);
    }

    /**
     * A digest being computed over a file of {@code size} bytes, fed in order: a SHA-256 by the system's OpenSSL where
     * there is one ({@link OpenSslSha256}: the JDK's is slow without C2, which the service runs without).
     */
    public MessageDigest start(long size) {
        if (kind == Kind.SHA256) {
            Optional<MessageDigest> openSsl = OpenSslSha256.create();
            if (openSsl.isPresent()) {
                return openSsl.get();
            }
        }
        try {
            MessageDigest md = MessageDigest.getInstance(kind.algorithm);
            if (kind == Kind.GIT_SHA1) {
                md.update(("blob " + size + "\0").getBytes(StandardCharsets.US_ASCII));
            }
            return md;
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    /** Whether a finished computation gives this digest. */
    public boolean matches(MessageDigest computed) {
        return HexFormat.of().formatHex(computed.digest()).equals(hex);
    }

    /** {@code sha256:<hex>} (as Ollama writes digests), or {@code sha1:<hex>}. */
    public String label() {
        return kind.label + ":" + hex;
    }

    /** A name for files named after this digest. */
    String fileName() {
        return kind.label + "-" + hex;
    }
}
