package io.rkllm.ffm;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class AbiIdentifierTest {
    @TempDir
    Path dir;

    @Test
    void gitBlobHashIsGitsHashObject() {
        // `printf 'hello\n' | git hash-object --stdin`
        assertThat(AbiIdentifier.gitBlobSha1("hello\n".getBytes(StandardCharsets.US_ASCII)))
                .isEqualTo("ce013625030ba8dba906f756967f9e9ca394464a");
    }

    @Test
    void theSimulatedLibrariesAreIdentifiedByTheirVersionString() throws IOException {
        LibraryIdentity v12 = new AbiIdentifier().identify(Sim.library(Abi.V1_2));
        LibraryIdentity v13 = new AbiIdentifier().identify(Sim.library(Abi.V1_3));
        assertThat(v12.version()).contains("1.2.3");
        assertThat(v12.abi()).contains(Abi.V1_2);
        assertThat(v13.version()).contains("1.3.0");
        assertThat(v13.abi()).contains(Abi.V1_3);
        assertThat(RkllmRuntime.open(Sim.library(Abi.V1_3), Optional.empty()).abi()).isEqualTo(Abi.V1_3);
        assertThat(RkllmRuntime.open(Sim.library(Abi.V1_2), Optional.empty()).abi()).isEqualTo(Abi.V1_2);
    }

    @Test
    void theBundledAarch64BuildsIdentifyTheSameWay() throws IOException {
        Path arm = Path.of(System.getProperty("rkllm.sim.dir", "target/sim")).resolveSibling("classes")
                .resolve("io/rkllm/ffm/sim/linux-aarch64");
        org.junit.jupiter.api.Assumptions.assumeTrue(Files.isDirectory(arm),
                "no aarch64 cross compiler on this machine: the jar carries the host's build only");
        assertThat(new AbiIdentifier().identify(arm.resolve("librkllmrt-1.2.so")).abi()).contains(Abi.V1_2);
        assertThat(new AbiIdentifier().identify(arm.resolve("librkllmrt-1.3.so")).abi()).contains(Abi.V1_3);
        byte[] elf = Files.readAllBytes(arm.resolve("librkllmrt-1.3.so"));
        // e_machine 183 = EM_AARCH64
        assertThat(elf[18] & 0xff | (elf[19] & 0xff) << 8).isEqualTo(183);
    }

    @Test
    void anUnknownLibraryIsRefusedWithHowToForceTheAbi() throws IOException {
        Path lib = dir.resolve("librkllmrt.so");
        Files.write(lib, "rkllm-runtime version: %s\0no version here\0".getBytes(StandardCharsets.US_ASCII));
        assertThatThrownBy(() -> RkllmRuntime.open(lib, Optional.empty()))
                .isInstanceOf(RkllmException.class)
                .hasMessageContaining("Set the ABI explicitly: 1.2 for runtime 1.2.1-1.2.3, 1.3 for 1.3.0");
    }

    @Test
    void aFileWithSeveralVersionsIsAmbiguous() throws IOException {
        Path lib = dir.resolve("librkllmrt.so");
        Files.write(lib, "x\0rkllm-runtime version: %s\0001.2.3\0001.3.0\0".getBytes(StandardCharsets.US_ASCII));
        LibraryIdentity identity = new AbiIdentifier().identify(lib);
        assertThat(identity.version()).isEmpty();
        assertThat(identity.evidence()).contains("several version strings");
    }

    @Test
    void runtime120IsRefusedAsUnsupported() throws IOException {
        Path lib = dir.resolve("librkllmrt.so");
        Files.write(lib, "rkllm-runtime version: %s\0001.2.0\0".getBytes(StandardCharsets.US_ASCII));
        assertThatThrownBy(() -> RkllmRuntime.open(lib, Optional.empty()))
                .hasMessageContaining("1.2.0").hasMessageContaining("is not supported");
    }

    @Test
    void officialHashesMapToTheirReleases() {
        assertThat(AbiIdentifier.OFFICIAL_RELEASES).containsEntry("0084abc34ab43359cfa9fd5d4c92ece34127dbd0", "1.2.3")
                .containsEntry("34167b32f99cb7ab19e21fb579fb750d96b878f1", "1.3.0");
        assertThat(Abi.ofRuntimeVersion("1.2.1b1")).contains(Abi.V1_2);
        assertThat(Abi.ofRuntimeVersion("1.2.0")).isEmpty();
        assertThat(Abi.ofRuntimeVersion("1.3.0")).contains(Abi.V1_3);
    }

    @Test
    void aForcedAbiThatContradictsTheLibraryIsRefused() throws IOException {
        LibraryIdentity identity = new AbiIdentifier().identify(Sim.library(Abi.V1_3));
        assertThat(RkllmRuntime.choose(identity, Optional.of(Abi.V1_3))).isEqualTo(Abi.V1_3);
        assertThatThrownBy(() -> RkllmRuntime.choose(identity, Optional.of(Abi.V1_2)))
                .isInstanceOf(RkllmException.class).hasMessageContaining("ABI 1.2 is forced")
                .hasMessageContaining("runtime 1.3.0").hasMessageContaining("crashes the process");
        LibraryIdentity older = new AbiIdentifier().identify(Sim.library(Abi.V1_2));
        assertThatThrownBy(() -> RkllmRuntime.open(older.path(), Optional.of(Abi.V1_3)))
                .isInstanceOf(RkllmException.class).hasMessageContaining("ABI 1.3 is forced");
        assertThat(Abi.parseChoice("auto")).isEmpty();
        assertThat(Abi.parseChoice("1.3")).contains(Abi.V1_3);
        assertThatThrownBy(() -> Abi.parseChoice("1.4")).hasMessageContaining("use auto, 1.2");
    }
}
