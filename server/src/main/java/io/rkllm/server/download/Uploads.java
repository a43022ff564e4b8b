package io.rkllm.server.download;

import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.security.MessageDigest;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * Models put on the machine from a client, as Ollama's API takes them (Open WebUI's "upload a GGUF"): files sent as
 * blobs by their digest ({@code POST /api/blobs/sha256:HEX}: streamed to the disk in constant memory, hashed as they
 * come, kept only when the bytes have that digest), then a model created from them ({@code POST /api/create}: its
 * GGUF, the system prompt and parameters as its {@code model.yaml}, its licence), or from a model already here
 * ({@code from}). Blobs wait in the models directory's hidden staging folder; one no model was created from goes with
 * the stale partial downloads, after a week.
 */
public final class Uploads {
    private static final Pattern DIGEST = Pattern.compile("sha256[:-]([0-9a-fA-F]{64})");
    private static final int BUFFER = 1 << 20;

    private final ModelsDirectory models;

    public Uploads(ModelsDirectory models) {
        this.models = models;
    }

    /**
     * A blob's digest as Ollama writes it ({@code sha256:HEX}, or {@code sha256-HEX}), as its hex.
     *
     * @throws PullException {@link PullException.Kind#INVALID} "invalid digest format", as Ollama says
     */
    public static String hex(String digest) throws PullException {
        var m = DIGEST.matcher(digest == null ? "" : digest.strip());
        if (!m.matches()) {
            throw new PullException(PullException.Kind.INVALID, "invalid digest format");
        }
        return m.group(1).toLowerCase(java.util.Locale.ROOT);
    }

    private Path blob(String hex) {
        return models.root().resolve(ModelsDirectory.STAGING).resolve("sha256-" + hex + ".blob");
    }

    /** Whether the blob is here. */
    public boolean has(String digest) throws PullException {
        return Files.isRegularFile(blob(hex(digest)), LinkOption.NOFOLLOW_LINKS);
    }

    /**
     * Receives a blob: the body streamed to the disk, hashed, kept under its digest when it has it.
     *
     * @param length the body's length when the client said ({@code Content-Length}), else -1: checked against the
     *               disk's room before a byte is written
     * @return false when the blob was already here (the body is not read)
     * @throws PullException {@link PullException.Kind#INVALID} when the bytes have another digest (Ollama's words),
     *                       {@link PullException.Kind#INSUFFICIENT_STORAGE} when the disk cannot hold it
     */
    public boolean receive(String digest, InputStream body, long length) throws PullException {
        String hex = hex(digest);
        Path target = blob(hex);
        if (Files.isRegularFile(target, LinkOption.NOFOLLOW_LINKS)) {
            return false;
        }
        models.create();
        if (length > 0) {
            models.requireSpace(length);
        }
        Path partial = target.resolveSibling("upload-" + hex + ".partial");
        try {
            Files.createDirectories(partial.getParent());
        } catch (IOException e) {
            throw Transfer.storage(partial.getParent(), e);
        }
        try (FileChannel channel = FileChannel.open(partial, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
                StandardOpenOption.TRUNCATE_EXISTING)) {
            FileLock lock = lock(channel, digest);
            try {
                MessageDigest sha = Digest.sha256(hex).start(Math.max(0, length));
                byte[] buffer = new byte[BUFFER];
                int n;
                while ((n = body.readNBytes(buffer, 0, buffer.length)) > 0) {
                    sha.update(buffer, 0, n);
                    ByteBuffer bytes = ByteBuffer.wrap(buffer, 0, n);
                    while (bytes.hasRemaining()) {
                        channel.write(bytes);
                    }
                }
                String got = HexFormat.of().formatHex(sha.digest());
                if (!got.equals(hex)) {
                    lock.release();
                    channel.close();
                    Files.deleteIfExists(partial);
                    throw new PullException(PullException.Kind.INVALID, "digest mismatch, expected \"sha256:" + hex
                            + "\", got \"sha256:" + got + "\"");
                }
                channel.force(true);
            } finally {
                if (lock.isValid()) {
                    lock.release();
                }
            }
        } catch (IOException e) {
            try {
                Files.deleteIfExists(partial);
            } catch (IOException ignored) {
                // the stale partials' prune takes it later
            }
            throw Transfer.storage(partial, e);
        }
        try {
            Files.move(partial, target, StandardCopyOption.ATOMIC_MOVE);
        } catch (FileAlreadyExistsException e) {
            // the same blob sent twice at once: the other one is there, and the same
        } catch (IOException e) {
            throw Transfer.storage(target, e);
        }
        return true;
    }

    private static FileLock lock(FileChannel channel, String digest) throws IOException, PullException {
        FileLock lock;
        try {
            lock = channel.tryLock();
        } catch (OverlappingFileLockException e) {
            lock = null;
        }
        if (lock == null) {
            throw new PullException(PullException.Kind.CONFLICT, digest + " is being uploaded right now");
        }
        return lock;
    }

    /**
     * What a model is created from.
     *
     * @param name      the name it is created as ({@code my-model}, {@code my-model:latest}): its folder is the name's
     *                  folder, its id
     * @param files     file name to blob digest ({@code {"model.gguf": "sha256:..."}}); a GGUF among them is the model,
     *                  one named as a projector ({@code mmproj}) is kept beside it
     * @param from      the model file of a model here that it is made of instead
     * @param system    its system prompt
     * @param parameters its parameters, as Ollama's (num_ctx, temperature, stop...)
     * @param license   its licence's text
     * @param template  its chat template: kept as its {@code chat_template.jinja} when it is Jinja (as a GGUF's is);
     *                  Ollama's Go templates are not run here, the model's own template is used instead
     */
    public record Creation(String name, Map<String, String> files, Optional<Path> from, Optional<String> system,
                           Optional<String> parameters, Optional<String> license, Optional<String> template) {
        public Creation {
            files = Map.copyOf(new LinkedHashMap<>(files));
        }
    }

    /**
     * What was created: the model's folder and file, the blobs it is made of, and whether a template sent with it was
     * left aside (a Go template).
     */
    public record Created(Path folder, Path model, List<String> layers, boolean templateIgnored) {
    }

    /** Jinja marks its statements {@code {% ... %}}; Ollama's Go templates never do. */
    static boolean isJinja(String template) {
        return template.contains("{%");
    }

    /**
     * Creates the model: its folder (a new one), its GGUF linked from the blob (or the model it is made of), its
     * {@code model.yaml}, its licence.
     *
     * @throws PullException {@link PullException.Kind#INVALID} for a request that names no model file or a blob not
     *                       here, {@link PullException.Kind#CONFLICT} when a model of that name is here already
     */
    public Created create(Creation c) throws PullException {
        OllamaName name = OllamaName.parse(c.name()).filter(n -> !n.explicitHost())
                .orElseThrow(() -> new PullException(PullException.Kind.INVALID, "invalid model name"));
        Path model = null;
        Path projector = null;
        List<String> layers = new java.util.ArrayList<>();
        for (var f : c.files().entrySet()) {
            Path blob = blob(hex(f.getValue()));
            if (!Files.isRegularFile(blob, LinkOption.NOFOLLOW_LINKS)) {
                throw new PullException(PullException.Kind.INVALID, "blob " + f.getValue() + " not found: upload it"
                        + " first (POST /api/blobs/" + f.getValue() + ")");
            }
            if (!isGguf(blob)) {
                throw new PullException(PullException.Kind.INVALID, f.getKey() + ": supplied file was not in GGUF"
                        + " format");
            }
            layers.add("sha256:" + hex(f.getValue()));
            if (f.getKey().toLowerCase(java.util.Locale.ROOT).contains("mmproj")) {
                projector = blob;
            } else if (model == null) {
                model = blob;
            } else {
                throw new PullException(PullException.Kind.INVALID, "more than one model file: this server runs one"
                        + " GGUF file per model (" + f.getKey() + ")");
            }
        }
        if (model == null && c.from().isEmpty()) {
            throw new PullException(PullException.Kind.INVALID, c.files().isEmpty()
                    ? "neither 'from' or 'files' was specified" : "no files provided to convert");
        }
        Path source = model != null ? model : c.from().get();
        String folderName = name.folder();
        Path folder = models.root().resolve(folderName).normalize();
        if (!models.root().equals(folder.getParent()) || folderName.startsWith(".")) {
            throw new PullException(PullException.Kind.INVALID, "invalid model name");
        }
        if (Files.exists(folder, LinkOption.NOFOLLOW_LINKS)) {
            throw new PullException(PullException.Kind.CONFLICT, "a model named " + name.shortest() + " is here"
                    + " already (" + folder + "); delete it first");
        }
        Path assembly = models.root().resolve(ModelsDirectory.STAGING).resolve(folderName + "."
                + java.util.UUID.randomUUID() + ".placing");
        try {
            Files.createDirectories(assembly);
            link(source, assembly.resolve(folderName + ".gguf"));
            if (projector != null) {
                link(projector, assembly.resolve(RegistryPlanner.PROJECTOR_FILE));
            }
            String yaml = RegistryPlanner.sidecar(name, "created from " + (model != null ? "an upload" : "a model"),
                    c.parameters().map(p -> p.getBytes(java.nio.charset.StandardCharsets.UTF_8)),
                    c.system().map(p -> p.getBytes(java.nio.charset.StandardCharsets.UTF_8)));
            Files.writeString(assembly.resolve("model.yaml"), yaml);
            if (c.license().isPresent() && !c.license().get().isBlank()) {
                Files.writeString(assembly.resolve("LICENSE"), c.license().get());
            }
            if (c.template().filter(Uploads::isJinja).isPresent()) {
                Files.writeString(assembly.resolve(io.rkllm.server.models.TemplateSource.FILE_NAME), c.template().get());
            }
            Files.move(assembly, folder, StandardCopyOption.ATOMIC_MOVE);
        } catch (FileAlreadyExistsException | AtomicMoveNotSupportedException e) {
            throw new PullException(PullException.Kind.CONFLICT, "a model named " + name.shortest() + " was created"
                    + " meanwhile; delete it first");
        } catch (IOException e) {
            throw Transfer.storage(folder, e);
        } finally {
            ModelFiles.deleteTree(assembly);
        }
        return new Created(folder, folder.resolve(folderName + ".gguf"), List.copyOf(layers),
                c.template().filter(t -> !isJinja(t)).isPresent());
    }

    /** A second name for the file's bytes (no copy: a blob or a model here), else a copy where links are not had. */
    private static void link(Path from, Path to) throws IOException {
        try {
            Files.createLink(to, from);
        } catch (UnsupportedOperationException | IOException e) {
            Files.copy(from, to);
        }
    }

    private static boolean isGguf(Path file) {
        try (InputStream in = Files.newInputStream(file)) {
            byte[] magic = in.readNBytes(4);
            return magic.length == 4 && magic[0] == 'G' && magic[1] == 'G' && magic[2] == 'U' && magic[3] == 'F';
        } catch (IOException e) {
            return false;
        }
    }
}
