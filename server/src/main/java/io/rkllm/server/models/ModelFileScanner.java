package io.rkllm.server.models;

import java.io.IOException;
import java.nio.file.AccessDeniedException;
import java.nio.file.DirectoryIteratorException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * Finds model files (names with one of the engines' endings: {@code .rkllm}, {@code .gguf}) under a directory, to a
 * bounded depth. Follows symbolic links (models often
 * live on another disk) but never scans a directory twice and never reports the same file twice. Skips
 * hidden entries (names starting with {@code .}) and {@code lost+found}; an unreadable directory or a
 * broken link is a warning, not a failure. Entries are visited in name order, so the result is
 * deterministic. File contents are never read.
 */
final class ModelFileScanner {

    /** Files found, in scan order, and the warnings met on the way. */
    record Scan(List<Path> files, List<Problem> warnings) {
        Scan {
            files = List.copyOf(files);
            warnings = List.copyOf(warnings);
        }
    }

    private final int maxDepth;
    private final List<String> endings;

    /**
     * @param maxDepth how deep a file may lie: 1 = only directly in the directory, 2 = also in a folder
     *                 of it ({@code models/Qwen3/qwen3.rkllm}), 3 = one more level
     * @param endings the model files' name endings, lower case
     */
    ModelFileScanner(int maxDepth, List<String> endings) {
        if (maxDepth < 1) {
            throw new IllegalArgumentException("maxDepth must be at least 1: " + maxDepth);
        }
        this.maxDepth = maxDepth;
        this.endings = List.copyOf(endings);
    }

    boolean isModelFileName(String name) {
        return extension(name).length() > 0 && name.length() > extension(name).length();
    }

    /** The model file ending of {@code name} (as written), or "" for none. */
    String extension(String name) {
        String lower = name.toLowerCase(Locale.ROOT);
        for (String ending : endings) {
            if (lower.endsWith(ending)) {
                return name.substring(name.length() - ending.length());
            }
        }
        return "";
    }

    /** Scans {@code root}, which must be a readable directory. */
    Scan scan(Path root) throws IOException {
        State state = new State();
        state.visitedDirs.add(root.toRealPath());
        Files.newDirectoryStream(root).close(); // fail (rather than warn) when the root itself cannot be listed
        walk(root, 0, state);
        return new Scan(state.files, state.warnings);
    }

    private static final class State {
        final List<Path> files = new ArrayList<>();
        final List<Problem> warnings = new ArrayList<>();
        final Set<Path> visitedDirs = new HashSet<>();
        final Map<Path, Path> seenFiles = new HashMap<>();
    }

    private void walk(Path dir, int depth, State state) {
        List<Path> entries = new ArrayList<>();
        try (DirectoryStream<Path> stream = Files.newDirectoryStream(dir)) {
            for (Path entry : stream) {
                entries.add(entry);
            }
        } catch (AccessDeniedException e) {
            state.warnings.add(Problem.warning(dir, "cannot read this directory (permission denied); skipped"));
            return;
        } catch (IOException | DirectoryIteratorException | SecurityException e) {
            state.warnings.add(Problem.warning(dir, "cannot read this directory (" + e + "); skipped"));
            return;
        }
        entries.sort(Comparator.comparing(p -> p.getFileName().toString()));
        int entryDepth = depth + 1;
        for (Path entry : entries) {
            String name = entry.getFileName().toString();
            if (name.startsWith(".") || name.equals("lost+found")) {
                continue;
            }
            BasicFileAttributes attrs;
            try {
                attrs = Files.readAttributes(entry, BasicFileAttributes.class);
            } catch (IOException | SecurityException e) {
                if (Files.isSymbolicLink(entry) && (isModelFileName(name) || entryDepth == 1)) {
                    state.warnings.add(Problem.warning(entry, "broken symbolic link (its target is missing); skipped"));
                } else if (isModelFileName(name)) {
                    state.warnings.add(Problem.warning(entry, "cannot be examined (" + e + "); skipped"));
                }
                continue;
            }
            if (attrs.isDirectory()) {
                if (entryDepth < maxDepth) {
                    descend(entry, entryDepth, state);
                }
            } else if (attrs.isRegularFile() && isModelFileName(name)) {
                accept(entry, attrs, state);
            }
        }
    }

    private void descend(Path dir, int depth, State state) {
        Path real;
        try {
            real = dir.toRealPath();
        } catch (IOException | SecurityException e) {
            state.warnings.add(Problem.warning(dir, "cannot resolve this directory (" + e + "); skipped"));
            return;
        }
        if (!state.visitedDirs.add(real)) {
            state.warnings.add(Problem.warning(dir, "links to " + real
                    + ", which is already scanned (a symbolic link loop or a second link); skipped"));
            return;
        }
        walk(dir, depth, state);
    }

    private void accept(Path file, BasicFileAttributes attrs, State state) {
        if (attrs.size() == 0) {
            state.warnings.add(Problem.warning(file, "is empty (an interrupted download?); skipped"));
            return;
        }
        if (!Files.isReadable(file)) {
            state.warnings.add(Problem.warning(file, "is not readable by this user (permission denied); skipped"));
            return;
        }
        Path real;
        try {
            real = file.toRealPath();
        } catch (IOException | SecurityException e) {
            state.warnings.add(Problem.warning(file, "cannot be resolved (" + e + "); skipped"));
            return;
        }
        Path first = state.seenFiles.putIfAbsent(real, file);
        if (first != null) {
            state.warnings.add(Problem.warning(file, "is the same file as " + first + "; skipped"));
            return;
        }
        state.files.add(file);
    }
}
