package io.rkllm.server.download;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.security.MessageDigest;
import java.util.HexFormat;
import java.util.Optional;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class OpenSslSha256Test {
    private static MessageDigest openSsl() {
        Optional<MessageDigest> md = OpenSslSha256.create();
        assumeTrue(md.isPresent(), "no libcrypto on this machine");
        return md.get();
    }

    @Test
    void givesTheJdksDigestForEverySizeAndSplit() throws Exception {
        MessageDigest ours = openSsl();
        SplittableRandom random = new SplittableRandom(7);
        for (int size : new int[] {0, 1, 55, 56, 63, 64, 65, 127, 128, 4096, 131_072, 1_000_003}) {
            byte[] bytes = new byte[size + 10];
            random.nextBytes(bytes);
            MessageDigest jdk = MessageDigest.getInstance("SHA-256");
            jdk.update(bytes, 5, size);
            // fed in uneven pieces from an offset, as a transfer's buffers come
            for (int at = 0; at < size; ) {
                int n = Math.min(size - at, 1 + random.nextInt(70_000));
                ours.update(bytes, 5 + at, n);
                at += n;
            }
            assertThat(HexFormat.of().formatHex(ours.digest())).as("%d bytes", size)
                    .isEqualTo(HexFormat.of().formatHex(jdk.digest()));
        }
    }

    @Test
    void startsAgainAfterADigestOrAReset() {
        MessageDigest md = openSsl();
        md.update("abc".getBytes());
        String first = HexFormat.of().formatHex(md.digest());
        md.update("something else".getBytes());
        md.reset();
        md.update((byte) 'a');
        md.update("bc".getBytes());
        assertThat(HexFormat.of().formatHex(md.digest())).isEqualTo(first)
                .isEqualTo("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    }

    @Test
    void isWhatAFilesDigestIsComputedWith() {
        assumeTrue(OpenSslSha256.create().isPresent(), "no libcrypto on this machine");
        assertThat(Digest.sha256("0".repeat(64)).start(10)).isInstanceOf(OpenSslSha256.class);
        assertThat(Digest.gitBlob("0".repeat(40)).start(10).getAlgorithm()).isEqualTo("SHA-1");
    }
}
