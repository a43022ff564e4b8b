package io.rkllm.server.engine.contract.cache;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.List;

/** One digest of a list of message keys, so that a cache can remember what it left out without keeping it. */
public final class Keys {
    private Keys() {
    }

    /** SHA-256 of the keys, each followed by a NUL, in hex. */
    public static String digest(List<String> keys) {
        try {
            MessageDigest sha = MessageDigest.getInstance("SHA-256");
            for (String k : keys) {
                sha.update(k.getBytes(StandardCharsets.UTF_8));
                sha.update((byte) 0);
            }
            return HexFormat.of().formatHex(sha.digest());
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
