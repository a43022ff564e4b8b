package io.rkllm.server.backend.echo;

import io.rkllm.server.models.FileReading;
import io.rkllm.server.models.ModelFormat;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

/** {@code .echo} files: opaque, served with the context their sidecar or the default gives. */
final class EchoFormat implements ModelFormat {

    @Override
    public List<String> endings() {
        return List.of(".echo");
    }

    @Override
    public FileReading read(Path file) {
        return new FileReading.Read(new EchoFacts(), Optional.empty());
    }
}
