package io.rkllm.ffm;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Map;
import java.util.Optional;
import java.util.TreeSet;
import java.util.regex.Pattern;

/**
 * Identifies a runtime library before calling it, since no symbol tells the ABIs apart: first by
 * the git blob SHA-1 of the official aarch64 releases, then by scanning the file for the version
 * string literal that the runtime's {@code rkllm-runtime version: %s} log line prints.
 */
public final class AbiIdentifier {
    /** {@code git hash-object} of the official aarch64 librkllmrt.so of each release. */
    static final Map<String, String> OFFICIAL_RELEASES = Map.of(
            "6b9439d59f2fe4bb8ef5ee2b09c102f1bf993da9", "1.2.1",
            "8ed9cca16f8d5ad8f7cdd7d393de6561182b3395", "1.2.2",
            "0084abc34ab43359cfa9fd5d4c92ece34127dbd0", "1.2.3",
            "34167b32f99cb7ab19e21fb579fb750d96b878f1", "1.3.0",
            "d45ee9b8dcb9ef27d7dd875ce3be3d5e6dfb654d", "1.2.0");
    private static final Pattern VERSION = Pattern.compile("1\\.\\d{1,2}\\.\\d{1,2}(b\\d{1,2})?");
    private static final byte[] MARKER = "rkllm-runtime version".getBytes(StandardCharsets.US_ASCII);

    public LibraryIdentity identify(Path library) throws IOException {
        byte[] bytes = Files.readAllBytes(library);
        String sha1 = gitBlobSha1(bytes);
        String release = OFFICIAL_RELEASES.get(sha1);
        if (release != null) {
            return new LibraryIdentity(library, sha1, Optional.of(release),
                    "file hash matches the official runtime " + release);
        }
        if (indexOf(bytes, MARKER) < 0) {
            return new LibraryIdentity(library, sha1, Optional.empty(),
                    "unknown file hash and no 'rkllm-runtime version' string inside: not a known RKLLM runtime");
        }
        TreeSet<String> versions = versionStrings(bytes);
        if (versions.size() == 1) {
            String version = versions.first();
            return new LibraryIdentity(library, sha1, Optional.of(version),
                    "unknown file hash; the version string " + version + " was found in the library");
        }
        return new LibraryIdentity(library, sha1, Optional.empty(), versions.isEmpty()
                ? "unknown file hash and no version string found in the library"
                : "unknown file hash and several version strings in the library: " + versions);
    }

    static String gitBlobSha1(byte[] content) {
        try {
            MessageDigest sha1 = MessageDigest.getInstance("SHA-1");
            sha1.update(("blob " + content.length + "\0").getBytes(StandardCharsets.US_ASCII));
            return HexFormat.of().formatHex(sha1.digest(content));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    /** Standalone NUL-terminated strings of the form 1.N.N[bN]. */
    static TreeSet<String> versionStrings(byte[] bytes) {
        TreeSet<String> found = new TreeSet<>();
        int start = 0;
        for (int i = 0; i <= bytes.length; i++) {
            if (i == bytes.length || bytes[i] == 0) {
                int length = i - start;
                if (length >= 5 && length <= 10) {
                    String candidate = new String(bytes, start, length, StandardCharsets.ISO_8859_1);
                    if (VERSION.matcher(candidate).matches()) {
                        found.add(candidate);
                    }
                }
                start = i + 1;
            }
        }
        return found;
    }

    private static int indexOf(byte[] haystack, byte[] needle) {
        outer:
        for (int i = 0; i <= haystack.length - needle.length; i++) {
            for (int j = 0; j < needle.length; j++) {
                if (haystack[i + j] != needle[j]) {
                    continue outer;
                }
            }
            return i;
        }
        return -1;
    }
}
