package io.rkllm.server.security;

import io.rkllm.server.config.ConfigException;
import io.rkllm.server.config.ServerConfig;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The API keys a client must present. Only SHA-256 digests are kept; a presented key is hashed
 * and compared with every digest in constant time ({@link MessageDigest#isEqual}), so neither the
 * comparison nor the number of keys checked tells an attacker how close a guess was. Keys are never
 * logged or echoed.
 */
public final class ApiKeys {
    private static final Logger LOG = LoggerFactory.getLogger(ApiKeys.class);
    /** Shorter keys are accepted with a warning: they can be guessed. */
    static final int SHORT_KEY = 16;

    private final List<byte[]> digests;

    private ApiKeys(List<byte[]> digests) {
        this.digests = List.copyOf(digests);
    }

    /** The keys of {@code security.api_keys} plus those of {@code security.api_key_file}. */
    public static ApiKeys load(ServerConfig.Security config) {
        List<String> keys = new ArrayList<>(config.apiKeys());
        if (!config.apiKeyFile().isBlank()) {
            keys.addAll(readFile(Path.of(config.apiKeyFile())));
        }
        long weak = keys.stream().distinct().filter(k -> k.length() < SHORT_KEY).count();
        if (weak > 0) {
            LOG.warn("{} API key(s) shorter than {} characters: use long random keys (e.g. openssl rand -hex 24)",
                    weak, SHORT_KEY);
        }
        return of(keys);
    }

    public static ApiKeys of(Collection<String> keys) {
        return new ApiKeys(keys.stream().distinct().map(ApiKeys::sha256).toList());
    }

    /** One key per line; blank lines and lines starting with {@code #} are ignored. */
    static List<String> readFile(Path file) {
        List<String> lines;
        try {
            lines = Files.readAllLines(file, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new ConfigException("security.api_key_file: cannot read " + file + " ("
                    + e.getClass().getSimpleName() + (e.getMessage() == null ? "" : ": " + e.getMessage()) + ")");
        }
        warnIfOthersCanRead(file);
        List<String> keys = new ArrayList<>();
        for (int i = 0; i < lines.size(); i++) {
            String line = lines.get(i).strip();
            if (line.isEmpty() || line.startsWith("#")) {
                continue;
            }
            if (!line.chars().allMatch(c -> c > 0x20 && c < 0x7f)) {
                // the line itself is a secret: name only its number
                throw new ConfigException("security.api_key_file: " + file + " line " + (i + 1)
                        + ": a key must be printable ASCII without spaces");
            }
            keys.add(line);
        }
        if (keys.isEmpty()) {
            throw new ConfigException("security.api_key_file: " + file + " holds no key (one key per line)");
        }
        return keys;
    }

    private static void warnIfOthersCanRead(Path file) {
        try {
            Set<PosixFilePermission> permissions = Files.getPosixFilePermissions(file);
            if (permissions.contains(PosixFilePermission.OTHERS_READ)) {
                LOG.warn("the API key file {} is readable by every user: chmod 600 it", file);
            }
        } catch (IOException | UnsupportedOperationException e) {
            // not a POSIX file system: nothing to check
        }
    }

    /** Whether any key is configured (else every request is accepted). */
    public boolean enabled() {
        return !digests.isEmpty();
    }

    public int size() {
        return digests.size();
    }

    /** Whether {@code presented} is one of the keys; the time taken does not depend on which or how close. */
    public boolean accepts(String presented) {
        if (presented == null) {
            return false;
        }
        byte[] digest = sha256(presented);
        boolean match = false;
        for (byte[] known : digests) {
            match |= MessageDigest.isEqual(known, digest);
        }
        return match;
    }

    static byte[] sha256(String key) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(key.getBytes(StandardCharsets.UTF_8));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
