package io.rkllm.server.app;

import io.rkllm.ffm.AbiIdentifier;
import io.rkllm.ffm.LibraryLocator;
import io.rkllm.server.backend.rkllm.RkllmProvider;
import io.rkllm.server.config.ServerConfig;
import io.rkllm.server.download.Board;
import io.rkllm.server.engine.contract.RuntimeInfo;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;

/** This machine as a pull sees it: the chip from the device tree, the RKLLM runtime's release. */
public final class BoardFacts {
    private static final Path COMPATIBLE = Path.of("/proc/device-tree/compatible");

    private BoardFacts() {
    }

    /** For the server: the release of the RKLLM runtime it opened, when it did. */
    public static Board of(Engines engines) {
        return new Board(Board.platformOf(COMPATIBLE), engines.runtime(RkllmProvider.NAME)
                .flatMap(RuntimeInfo::release));
    }

    /** For the {@code pull} command: the release of the library the server would open, identified by its file. */
    public static Board of(ServerConfig.Runtime config, Map<String, String> environment) {
        Optional<Path> configured = config.library().isBlank() ? Optional.empty() : Optional.of(Path.of(config.library()));
        Optional<String> version = new LibraryLocator(environment).locate(configured).flatMap(library -> {
            try {
                return new AbiIdentifier().identify(library).version();
            } catch (IOException | RuntimeException e) {
                return Optional.empty();
            }
        });
        return new Board(Board.platformOf(COMPATIBLE), version);
    }
}
