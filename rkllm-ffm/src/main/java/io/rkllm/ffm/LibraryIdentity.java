package io.rkllm.ffm;

import java.nio.file.Path;
import java.util.Optional;

/**
 * What is known about a librkllmrt.so file before any call into it.
 *
 * @param version the runtime release, when identified
 * @param evidence how it was identified (or why not), for logs and {@code doctor}
 */
public record LibraryIdentity(Path path, String gitBlobSha1, Optional<String> version, String evidence) {

    /** The ABI of the identified version; empty when unknown or unsupported. */
    public Optional<Abi> abi() {
        return version.flatMap(Abi::ofRuntimeVersion);
    }
}
