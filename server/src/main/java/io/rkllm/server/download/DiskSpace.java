package io.rkllm.server.download;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/** The bytes a directory's file system has free for this user. */
@FunctionalInterface
public interface DiskSpace {
    DiskSpace SYSTEM = dir -> Files.getFileStore(dir).getUsableSpace();

    long usable(Path dir) throws IOException;
}
