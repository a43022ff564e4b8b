package io.rkllm.llama;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HexFormat;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;

/**
 * The llama.cpp build the jar carries for one architecture: the files its {@code BUNDLE} list names (libllama,
 * libggml, ggml's CPU backends, the licence), under {@code io/rkllm/llama/native/linux-<arch>/}, and their
 * extraction into one cache directory, named after the list's hash, made whole in a temporary directory and then
 * renamed, so that a directory that exists is complete and a second start extracts nothing.
 *
 * @param release the llama.cpp release, e.g. {@code v0.5.0}
 * @param origin where the files came from, e.g. {@code @node-llama-cpp/linux-x64 3.22.1}
 * @param library the file to load
 * @param files every file, the library first
 */
public record BundledLlama(String arch, String release, String origin, String library, List<String> files,
                           String listHash) {
    static final String ROOT = "io/rkllm/llama/native/linux-%s/";

    /** The bundle for {@code arch} (x86_64, aarch64) on the class path; empty when none is bundled for it. */
    public static Optional<BundledLlama> forArch(String arch) {
        String list = ROOT.formatted(arch) + "BUNDLE";
        try (InputStream in = BundledLlama.class.getClassLoader().getResourceAsStream(list)) {
            if (in == null) {
                return Optional.empty();
            }
            byte[] bytes = in.readAllBytes();
            return Optional.of(parse(arch, new String(bytes, StandardCharsets.UTF_8),
                    HexFormat.of().formatHex(sha256().digest(bytes))));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + list + " from the class path", e);
        }
    }

    static BundledLlama parse(String arch, String text, String listHash) {
        String release = null;
        String origin = null;
        String library = null;
        List<String> files = new ArrayList<>();
        for (String line : text.lines().map(String::strip).toList()) {
            if (line.isEmpty() || line.startsWith("#")) {
                continue;
            }
            String[] kv = line.split(" ", 2);
            String value = kv.length == 2 ? kv[1].strip() : "";
            switch (kv[0]) {
                case "release" -> release = value;
                case "package" -> origin = value;
                case "library" -> library = value;
                case "file" -> files.add(value);
                default -> throw new IllegalStateException("BUNDLE for " + arch + ": unknown line " + line);
            }
        }
        if (release == null || origin == null || library == null) {
            throw new IllegalStateException("BUNDLE for " + arch + " names no release, package or library");
        }
        List<String> all = new ArrayList<>();
        all.add(library);
        all.addAll(files);
        for (String file : all) {
            if (file.contains("/") || file.startsWith(".")) {
                throw new IllegalStateException("BUNDLE for " + arch + ": not a plain file name: " + file);
            }
        }
        return new BundledLlama(arch, release, origin, library, List.copyOf(all), listHash);
    }

    /** The resource path of one of the bundle's files. */
    String resource(String file) {
        return ROOT.formatted(arch) + file;
    }

    /**
     * The library, extracted with the rest of the bundle under {@code cacheDir} (once: a later call, in this
     * process or another, finds the directory whole and copies nothing).
     */
    public Path extract(Path cacheDir) {
        Path target = cacheDir.resolve("llama.cpp-" + release + "-" + listHash.substring(0, 16));
        if (Files.isDirectory(target)) {
            return target.resolve(library);
        }
        Path temporary = null;
        try {
            Files.createDirectories(cacheDir);
            temporary = Files.createTempDirectory(cacheDir, ".extracting-");
            ClassLoader loader = BundledLlama.class.getClassLoader();
            for (String file : files) {
                try (InputStream in = loader.getResourceAsStream(resource(file))) {
                    if (in == null) {
                        throw new IllegalStateException("the jar's llama.cpp bundle for " + arch + " lacks " + file
                                + " (a build that did not copy npm's package: rebuild with ./mvnw)");
                    }
                    Files.copy(in, temporary.resolve(file), StandardCopyOption.REPLACE_EXISTING);
                }
            }
            try {
                Files.move(temporary, target, StandardCopyOption.ATOMIC_MOVE);
                temporary = null;
            } catch (FileAlreadyExistsException | java.nio.file.DirectoryNotEmptyException e) {
                // another process extracted the same bundle meanwhile: its directory is as good as ours
            }
            return target.resolve(library);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot extract the bundled llama.cpp library to " + cacheDir, e);
        } finally {
            if (temporary != null) {
                deleteQuietly(temporary);
            }
        }
    }

    /** What the bundle is, for logs, the banner and {@code doctor}. */
    public String describe() {
        return "the jar's llama.cpp " + release + " (npm " + origin + ")";
    }

    private static void deleteQuietly(Path dir) {
        try (Stream<Path> walk = Files.walk(dir)) {
            walk.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException e) {
            // a leftover temporary directory is harmless: its name starts with a dot and nothing reads it
        }
    }

    private static MessageDigest sha256() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
