package io.rkllm.server.models;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.TreeMap;

/**
 * Finds the models under a models directory and describes them (see docs/models.md).
 *
 * <ul>
 *   <li>Every file up to {@code maxDepth} levels down whose name ends as one of the engines' formats says
 *       ({@code .rkllm}, {@code .gguf}) is a model, read by that engine's {@link ModelFormat}; hidden entries are
 *       skipped.</li>
 *   <li>Id: the name of the folder holding the file; the file stem when the file lies directly in the models
 *       directory; {@code folder-stem} when a folder holds several model files. Sanitised by
 *       {@link ModelIds#sanitize}; a duplicate gets {@code -2}, {@code -3}, ... in path order (with a warning).</li>
 *   <li>Sidecar: {@code <stem>.model.yaml} next to the file, else {@code model.yaml} in the model's own folder
 *       (never a {@code model.yaml} directly in the models directory).</li>
 *   <li>Context length: sidecar, else {@code model_config.json} (compatibility), else a {@code -4k}/{@code ctx4096}
 *       part of the file name, then of the folder name, else 4096.</li>
 *   <li>Capabilities and sampling: the family profile recognised from the name (or named by the sidecar's
 *       {@code family}), overridden field by field by the sidecar.</li>
 * </ul>
 * A model whose sidecar has an error is left out and the error reported; a stable id is still reserved for it,
 * so fixing one sidecar never renames another model. Stateless apart from its configuration; thread-safe.
 */
public final class ModelDiscovery {
    /** The largest chat_template.jinja read (real ones are 1 to 30 KB). */
    static final long MAX_TEMPLATE_BYTES = 1L << 20;

    /** Default depth: files in {@code models/}, {@code models/a/} and {@code models/a/b/}. */
    public static final int DEFAULT_MAX_DEPTH = 3;
    /** The folder-wide sidecar name. */
    public static final String SIDECAR = "model.yaml";
    /** Suffix of a per-file sidecar: {@code <stem>.model.yaml}. */
    public static final String FILE_SIDECAR_SUFFIX = ".model.yaml";
    /** The leading Python server's per-folder config; only its {@code context_length} is read. */
    public static final String LEGACY_CONFIG = "model_config.json";

    private final FamilyProfiles profiles;
    private final int maxDepth;
    private final List<ModelFormat> formats;

    /** @param formats the model files of each engine and what it reads of them, in the engines' order */
    public ModelDiscovery(List<ModelFormat> formats) {
        this(FamilyProfiles.builtIn(), DEFAULT_MAX_DEPTH, formats);
    }

    /** The endings of every engine's model files, in the engines' order. */
    public List<String> endings() {
        return formats.stream().flatMap(f -> f.endings().stream()).toList();
    }

    public ModelDiscovery(FamilyProfiles profiles, int maxDepth, List<ModelFormat> formats) {
        this.profiles = Objects.requireNonNull(profiles, "profiles");
        this.formats = List.copyOf(formats);
        if (maxDepth < 1) {
            throw new IllegalArgumentException("maxDepth must be at least 1: " + maxDepth);
        }
        this.maxDepth = maxDepth;
    }

    /** A model file with its id basis, before sidecars are applied. */
    private record Candidate(Path file, Path folder, boolean inOwnFolder, String rawName, String stem,
                             Path sidecarPath, String baseId) {
    }

    /** Discovers the models under {@code modelsDir}. Never throws for file system problems: they are reported. */
    public DiscoveryResult discover(Path modelsDir) {
        Objects.requireNonNull(modelsDir, "modelsDir");
        Path root = modelsDir.toAbsolutePath().normalize();
        List<Problem> warnings = new ArrayList<>();
        List<Problem> errors = new ArrayList<>();

        Optional<Problem> unusable = checkRoot(modelsDir, root);
        if (unusable.isPresent()) {
            return new DiscoveryResult(List.of(), List.of(), List.of(unusable.get()));
        }
        ModelFileScanner scanner = new ModelFileScanner(maxDepth, endings());
        ModelFileScanner.Scan scan;
        try {
            scan = scanner.scan(root);
        } catch (IOException | SecurityException e) {
            return new DiscoveryResult(List.of(), List.of(),
                    List.of(Problem.error(root, "the models directory cannot be read: " + e)));
        }
        warnings.addAll(scan.warnings());
        if (Files.isRegularFile(root.resolve(SIDECAR))) {
            warnings.add(Problem.warning(root.resolve(SIDECAR), "ignored: a model.yaml directly in the models "
                    + "directory would apply to every model there; name it <file stem>" + FILE_SIDECAR_SUFFIX));
        }

        // a split model's later parts are no models of their own, nor do they make its folder hold several
        List<Path> files = scan.files().stream().filter(f -> !formatOf(f.getFileName().toString()).partOfAnother(f))
                .toList();
        List<Candidate> candidates = candidates(root, files, scanner);
        List<String> ids = ModelIds.uniquify(candidates.stream().map(Candidate::baseId).toList());
        Map<String, Path> firstWithBase = new HashMap<>();
        for (int i = 0; i < candidates.size(); i++) {
            Candidate c = candidates.get(i);
            Path first = firstWithBase.putIfAbsent(c.baseId(), c.file());
            if (first != null) {
                warnings.add(Problem.warning(c.file(), "its id '" + c.baseId() + "' is already used by " + first
                        + "; this model is served as '" + ids.get(i) + "' (rename its folder, or add an alias)"));
            }
        }

        SidecarParser parser = new SidecarParser();
        Map<Path, SidecarParser.Parsed> sidecars = new HashMap<>();
        List<ModelDescriptor> models = new ArrayList<>();
        for (int i = 0; i < candidates.size(); i++) {
            Candidate c = candidates.get(i);
            Sidecar sidecar = Sidecar.none(c.sidecarPath());
            if (Files.exists(c.sidecarPath())) {
                boolean firstUse = !sidecars.containsKey(c.sidecarPath());
                SidecarParser.Parsed parsed = sidecars.computeIfAbsent(c.sidecarPath(), parser::parse);
                if (firstUse) {
                    warnings.addAll(parsed.warnings());
                    errors.addAll(parsed.errors());
                }
                if (parsed.sidecar().isEmpty()) {
                    errors.add(Problem.error(c.file(), "not served as '" + ids.get(i) + "' because its sidecar "
                            + c.sidecarPath().getFileName() + " has errors"));
                    continue;
                }
                sidecar = parsed.sidecar().get();
            }
            describe(c, ids.get(i), sidecar, parser, warnings, errors).ifPresent(models::add);
        }
        models = ModelAliases.resolve(models, warnings);
        models.sort(Comparator.comparing(ModelDescriptor::id));
        return new DiscoveryResult(models, warnings, errors);
    }

    private static Optional<Problem> checkRoot(Path given, Path root) {
        if (!Files.exists(root)) {
            String hint = given.toString().startsWith("~")
                    ? " ('~' is not expanded here: give the full path, e.g. /home/you/models)" : "";
            return Optional.of(Problem.error(root, "the models directory does not exist" + hint));
        }
        if (!Files.isDirectory(root)) {
            return Optional.of(Problem.error(root, "the models directory is not a directory"));
        }
        if (!Files.isReadable(root)) {
            return Optional.of(Problem.error(root, "the models directory is not readable by this user"));
        }
        return Optional.empty();
    }

    private static List<Candidate> candidates(Path root, List<Path> files, ModelFileScanner scanner) {
        // Sort by path relative to the models directory ('/'-separated) so ids and suffixes are deterministic.
        TreeMap<String, Path> byRelative = new TreeMap<>();
        for (Path f : files) {
            byRelative.put(root.relativize(f).toString().replace('\\', '/'), f);
        }
        Map<Path, List<Path>> byFolder = new LinkedHashMap<>();
        for (Path f : byRelative.values()) {
            byFolder.computeIfAbsent(f.getParent(), k -> new ArrayList<>()).add(f);
        }
        List<Candidate> out = new ArrayList<>();
        for (Map.Entry<Path, List<Path>> group : byFolder.entrySet()) {
            Path folder = group.getKey();
            boolean ownFolder = !folder.equals(root);
            String folderName = ownFolder ? folder.getFileName().toString() : "";
            for (Path f : group.getValue()) {
                String fileName = f.getFileName().toString();
                String stem = fileName.substring(0, fileName.length() - scanner.extension(fileName).length());
                String raw;
                if (!ownFolder) {
                    raw = stem;
                } else if (group.getValue().size() == 1) {
                    raw = folderName;
                } else {
                    raw = folderName + "-" + stem;
                }
                Path fileSidecar = folder.resolve(stem + FILE_SIDECAR_SUFFIX);
                Path sidecar = !ownFolder || Files.exists(fileSidecar) ? fileSidecar : folder.resolve(SIDECAR);
                String base = ModelIds.sanitize(raw);
                if (base.isEmpty()) {
                    base = ModelIds.sanitize(stem);
                }
                if (base.isEmpty()) {
                    base = "model";
                }
                out.add(new Candidate(f, folder, ownFolder, raw, stem, sidecar, base));
            }
        }
        return out;
    }

    private Optional<ModelDescriptor> describe(Candidate c, String id, Sidecar sidecar, SidecarParser parser,
                                               List<Problem> warnings, List<Problem> errors) {
        String folderName = c.inOwnFolder() ? c.folder().getFileName().toString() : "";
        String fileName = c.file().getFileName().toString();

        ModelFormat format = formatOf(fileName);
        FileReading.Read read;
        switch (format.read(c.file())) {
            case FileReading.Read r -> read = r;
            case FileReading.Skipped skipped -> {
                warnings.add(Problem.warning(c.file(), skipped.warning()));
                return Optional.empty();
            }
            case FileReading.Refused refused -> {
                errors.add(Problem.error(c.file(), DiscoveryResult.REFUSED + refused.error()));
                return Optional.empty();
            }
        }
        Optional<ModelHeader> header = read.facts().header();
        FamilyProfile profile = header.isPresent()
                ? profiles.detect(folderName, fileName, header.get().name().orElse(""), header.get().architecture())
                : profiles.detect(folderName, fileName);
        String family = profile.family();
        if (sidecar.family().isPresent()) {
            String wanted = sidecar.family().get();
            if (!wanted.equals(profile.family()) && !wanted.equals(profile.name())) {
                Optional<FamilyProfile> named = profiles.byName(wanted);
                if (named.isPresent()) {
                    profile = named.get();
                    family = profile.family();
                } else {
                    profile = profiles.generic();
                    family = wanted;
                    warnings.add(Problem.warning(sidecar.path(), "family", "'" + wanted
                            + "' has no built-in profile; generic defaults apply to the keys this file leaves out"));
                }
            }
        }

        boolean pools = header.flatMap(ModelHeader::pooling).isPresent();
        ModelKind kind = sidecar.kind().orElse(profile.embedding().isPresent() || pools ? ModelKind.EMBEDDING
                : ModelKind.CHAT);
        Optional<EmbeddingSettings> embedding = Optional.empty();
        if (kind == ModelKind.EMBEDDING) {
            EmbeddingSettings base = profile.embedding().orElse(EmbeddingSettings.generic());
            if (header.isPresent()) {
                base = HeaderHints.settings(base, header.get());
            }
            embedding = Optional.of(sidecar.embedding().applyTo(base));
            if (sidecar.thinking().orElse(false) || sidecar.tools().orElse(false)) {
                warnings.add(Problem.warning(sidecar.path(), "capabilities", "ignored: an embedding model neither "
                        + "thinks nor calls tools"));
            }
        } else if (!sidecar.embedding().isEmpty()) {
            warnings.add(Problem.warning(sidecar.path(), "embedding", "ignored: this is a chat model (set kind: "
                    + "embedding if it is an embedding model)"));
        }
        TemplateSource template = templateSource(c, header, warnings).withDialect(sidecar.dialect());
        Capabilities known = HeaderHints.capabilities(profile, template);
        Capabilities caps = kind == ModelKind.EMBEDDING ? Capabilities.none() : new Capabilities(
                sidecar.thinking().orElse(known.thinking()), sidecar.tools().orElse(known.tools()));
        boolean startsOpen = sidecar.thinkingStartsOpen().orElse(profile.thinkingStartsOpen());
        if (startsOpen && !caps.thinking()) {
            if (sidecar.thinkingStartsOpen().isPresent()) {
                errors.add(Problem.error(sidecar.path(), "thinking_starts_open",
                        "is true, but capabilities.thinking is false; set capabilities.thinking: true"));
                return Optional.empty();
            }
            startsOpen = false;
        }

        int contextLength;
        String source;
        if (sidecar.contextLength().isPresent()) {
            contextLength = sidecar.contextLength().getAsInt();
            source = ModelDescriptor.SOURCE_SIDECAR;
        } else if (read.context().isPresent()) {
            contextLength = read.context().get().length();
            source = read.context().get().source();
        } else {
            OptionalInt legacy = OptionalInt.empty();
            Path legacyFile = c.folder().resolve(LEGACY_CONFIG);
            if (c.inOwnFolder() && Files.isRegularFile(legacyFile)) {
                legacy = parser.legacyContextLength(legacyFile, warnings);
            }
            OptionalInt fromName = OptionalInt.empty();
            if (legacy.isEmpty()) {
                fromName = nameHint(c.stem(), c.file(), warnings);
                if (ContextLengthHints.rawFromName(c.stem()).isEmpty() && c.inOwnFolder()) {
                    fromName = nameHint(folderName, c.file(), warnings);
                }
            }
            if (legacy.isPresent()) {
                contextLength = legacy.getAsInt();
                source = ModelDescriptor.SOURCE_SIDECAR;
            } else if (fromName.isPresent()) {
                contextLength = fromName.getAsInt();
                source = ModelDescriptor.SOURCE_NAME;
            } else {
                contextLength = ModelDescriptor.DEFAULT_CONTEXT_LENGTH;
                source = ModelDescriptor.SOURCE_DEFAULT;
            }
        }

        SamplingDefaults sampling = profile.sampling().overriddenBy(sidecar.sampling());
        SamplingDefaults thinkingSampling = profile.thinkingSampling().overriddenBy(sidecar.thinkingSampling());
        if (sampling.maxTokens().isPresent() && sampling.maxTokens().getAsInt() >= contextLength) {
            warnings.add(Problem.warning(sidecar.path(), "max_tokens", sampling.maxTokens().getAsInt()
                    + " is not below the context length " + contextLength + "; the context will limit it"));
        }

        long size;
        Instant modified;
        try {
            size = Files.size(c.file()) + read.facts().otherFilesBytes();
            modified = Files.getLastModifiedTime(c.file()).toInstant();
        } catch (IOException | SecurityException e) {
            warnings.add(Problem.warning(c.file(), "cannot be examined (" + e + "); skipped"));
            return Optional.empty();
        }

        String displayName = sidecar.name().orElse(c.rawName());
        Optional<VisionSpec> vision = Optional.empty();
        if (embedding.isEmpty() && format.encodersBeside()) {
            try {
                vision = VisionDiscovery.of(c.file(), c.inOwnFolder(), sidecar, folderName, warnings);
            } catch (VisionDiscovery.Refused e) {
                errors.add(e.problem());
                return Optional.empty();
            }
        } else if (!sidecar.vision().equals(Sidecar.Vision.NONE)) {
            warnings.add(Problem.warning(sidecar.path(), "vision", "ignored: an embedding model reads no pictures"));
        }
        return Optional.of(new ModelDescriptor(id, displayName, sidecar.aliases(), family,
                new ModelDescriptor.Stored(c.file(), size, modified, sidecar.memoryMb()),
                new ModelDescriptor.Context(contextLength, source),
                new ModelDescriptor.Chat(caps, sampling, thinkingSampling, sidecar.chatTemplate(),
                        sidecar.defaultSystemPrompt(), startsOpen, template),
                vision, embedding, read.facts()));
    }

    /**
     * The model's own chat template: a {@code chat_template.jinja} in the model's own folder (the file Hugging Face
     * repositories have), else the one its file carries.
     */
    private static TemplateSource templateSource(Candidate c, Optional<ModelHeader> header, List<Problem> warnings) {
        Path beside = c.folder().resolve(TemplateSource.FILE_NAME);
        if (c.inOwnFolder() && Files.isRegularFile(beside)) {
            try {
                if (Files.size(beside) <= MAX_TEMPLATE_BYTES) {
                    return new TemplateSource(Optional.of(Files.readString(beside)), TemplateSource.BESIDE,
                            Optional.empty());
                }
                warnings.add(Problem.warning(beside, "is larger than " + MAX_TEMPLATE_BYTES / 1024
                        + " KB: not a chat template; ignored"));
            } catch (IOException | RuntimeException e) {
                warnings.add(Problem.warning(beside, "cannot be read (" + e.getMessage() + "); ignored"));
            }
        }
        Optional<String> own = header.flatMap(ModelHeader::chatTemplate);
        return own.map(t -> new TemplateSource(Optional.of(t), TemplateSource.HEADER, Optional.empty()))
                .orElse(TemplateSource.NOTHING);
    }

    /** The format of the first engine whose endings the file's name has (the scanner found no other files). */
    private ModelFormat formatOf(String fileName) {
        String lower = fileName.toLowerCase(Locale.ROOT);
        return formats.stream().filter(f -> f.endings().stream().anyMatch(lower::endsWith)).findFirst()
                .orElseThrow();
    }

    private static OptionalInt nameHint(String name, Path file, List<Problem> warnings) {
        OptionalInt raw = ContextLengthHints.rawFromName(name);
        OptionalInt accepted = ContextLengthHints.fromName(name);
        if (raw.isPresent() && accepted.isEmpty()) {
            warnings.add(Problem.warning(file, "the name '" + name + "' suggests a context of " + raw.getAsInt()
                    + " tokens, outside what a name may set (" + ContextLengthHints.MIN + " to "
                    + ContextLengthHints.MAX + "); set context_length in " + SIDECAR + " if that is right"));
        }
        return accepted;
    }
}
