package io.rkllm.server.download;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import java.util.regex.Pattern;

/**
 * Which files of the models directory belong to which model (a split GGUF model's parts, a model's own sidecar, the
 * models of a folder), and deleting one model's files without touching another's.
 *
 * @param root the models directory, absolute and normalised
 * @param modelEndings the endings of the model files of every engine the server has (lower case, {@code .gguf})
 */
record ModelFiles(Path root, List<String> modelEndings) {
    private static final Pattern SPLIT = Pattern.compile("(?i)^(.+)-(\\d{5})-of-(\\d{5})\\.gguf$");

    /**
     * Deletes one model's files: its whole folder when it is the folder's only model, else the file, the other
     * parts of a split GGUF model and its own sidecar. Symbolic links are removed, never followed.
     *
     * @return what was deleted
     */
    List<Path> delete(Path modelFile) throws PullException {
        Path file = modelFile.toAbsolutePath().normalize();
        if (!file.startsWith(root) || file.equals(root)) {
            throw new PullException(PullException.Kind.INVALID, file + " is not in the models directory " + root);
        }
        Path folder = file.getParent();
        List<Path> own = ownFiles(file);
        List<Path> deleted = new ArrayList<>();
        try {
            boolean alone = !folder.equals(root) && modelFiles(folder).stream().allMatch(own::contains)
                    && nestedModels(folder).isEmpty();
            if (alone) {
                deleteTree(folder, deleted);
            } else {
                for (Path p : own) {
                    if (Files.deleteIfExists(p)) {
                        deleted.add(p);
                    }
                }
            }
        } catch (IOException e) {
            throw Transfer.storage(file, e);
        }
        return deleted;
    }

    /** The model file, its other parts and its own sidecar. */
    private List<Path> ownFiles(Path file) {
        List<Path> own = new ArrayList<>(List.of(file));
        String name = file.getFileName().toString();
        var m = SPLIT.matcher(name);
        String stem = m.matches() ? m.group(1) : withoutEnding(name);
        if (m.matches()) {
            int count = Integer.parseInt(m.group(3));
            for (int i = 1; i <= count; i++) {
                Path part = file.resolveSibling(String.format(Locale.ROOT, "%s-%05d-of-%s.gguf", stem, i, m.group(3)));
                if (!own.contains(part)) {
                    own.add(part);
                }
            }
        }
        own.add(file.resolveSibling(stem + ".model.yaml"));
        return own;
    }

    /** The model files directly in a folder. */
    List<Path> modelFiles(Path folder) {
        List<Path> found = new ArrayList<>();
        try (DirectoryStream<Path> entries = Files.newDirectoryStream(folder)) {
            for (Path p : entries) {
                String n = p.getFileName().toString().toLowerCase(Locale.ROOT);
                if (!n.startsWith(".") && isModelFile(n)) {
                    found.add(p);
                }
            }
        } catch (IOException e) {
            return found;
        }
        return found;
    }

    /** Model files in the folders below one (a grouping folder's other models). */
    private List<Path> nestedModels(Path folder) throws IOException {
        try (Stream<Path> walk = Files.walk(folder)) {
            return walk.filter(p -> !p.getParent().equals(folder)).filter(p -> {
                String n = p.getFileName().toString().toLowerCase(Locale.ROOT);
                return isModelFile(n);
            }).toList();
        }
    }

    private boolean isModelFile(String lowerCaseName) {
        return modelEndings.stream().anyMatch(lowerCaseName::endsWith);
    }

    /** A model file's name without its engine's ending. */
    private String withoutEnding(String name) {
        String lower = name.toLowerCase(Locale.ROOT);
        return modelEndings.stream().filter(lower::endsWith).findFirst()
                .map(e -> name.substring(0, name.length() - e.length())).orElse(name);
    }

    /** Deletes a folder of the staging area and what is in it, quietly (what is left is hidden and harmless). */
    static void deleteTree(Path folder) {
        if (!Files.exists(folder, LinkOption.NOFOLLOW_LINKS)) {
            return;
        }
        try {
            deleteTree(folder, new ArrayList<>());
        } catch (IOException e) {
            // the prune of stale staging files takes it later
        }
    }

    private static void deleteTree(Path folder, List<Path> deleted) throws IOException {
        Files.walkFileTree(folder, new SimpleFileVisitor<>() {
            @Override
            public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) throws IOException {
                Files.delete(file);
                deleted.add(file);
                return FileVisitResult.CONTINUE;
            }

            @Override
            public FileVisitResult postVisitDirectory(Path dir, IOException e) throws IOException {
                if (e != null) {
                    throw e;
                }
                Files.delete(dir);
                deleted.add(dir);
                return FileVisitResult.CONTINUE;
            }
        });
    }
}
