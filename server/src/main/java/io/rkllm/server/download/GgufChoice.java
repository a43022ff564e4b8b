package io.rkllm.server.download;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Which GGUF file of a repository a pull means, as llama.cpp's {@code -hf} and Ollama's {@code hf.co/} pulls choose
 * it: the quantisation named ({@code :Q5_K_M}, matched in the file's name or folder, any case), else
 * {@code Q4_K_M}, else {@code Q8_0}, else the first model file; image projectors and importance matrices are no
 * models. A model split into parts ({@code -00001-of-00003.gguf}) comes whole.
 */
final class GgufChoice {
    static final List<String> DEFAULT_TAGS = List.of("Q4_K_M", "Q8_0");
    private static final Pattern SPLIT = Pattern.compile("(?i)^(.+)-(\\d{5})-of-(\\d{5})\\.gguf$");
    private static final Pattern QUANT = Pattern.compile("[-.]([A-Za-z0-9_]+)$");
    private static final List<String> NOT_MODELS = List.of("mmproj", "imatrix", "mtp-", "eagle3-");

    private GgufChoice() {
    }

    /** Whether the repository has GGUF model files. */
    static boolean has(RepoListing listing) {
        return listing.files().stream().anyMatch(GgufChoice::isModel);
    }

    static boolean isModel(HubFile f) {
        String name = f.name().toLowerCase(Locale.ROOT);
        return name.endsWith(".gguf") && NOT_MODELS.stream().noneMatch(name::contains);
    }

    /** The model the tag names, whole; empty when none matches it (or, without a tag, no model at all). */
    static Optional<PullPlan> plan(ModelName name, RepoListing listing) throws PullException {
        List<HubFile> models = listing.files().stream().filter(GgufChoice::isModel).filter(GgufChoice::firstOrWhole)
                .toList();
        Optional<HubFile> chosen = Optional.empty();
        if (name.tag().isPresent()) {
            chosen = matching(models, name.tag().get());
        } else {
            for (String tag : DEFAULT_TAGS) {
                chosen = chosen.or(() -> matching(models, tag));
            }
            chosen = chosen.or(() -> models.stream().findFirst());
        }
        if (chosen.isEmpty()) {
            return Optional.empty();
        }
        return Optional.of(whole(chosen.get(), listing));
    }

    /** The plan for a file named in full (any part of a split model names the whole model). */
    static PullPlan planFile(HubFile file, RepoListing listing) throws PullException {
        Matcher split = SPLIT.matcher(file.name());
        if (split.matches() && !split.group(2).equals("00001")) {
            String first = file.path().substring(0, file.path().length() - file.name().length()) + split.group(1)
                    + "-00001-of-" + split.group(3) + ".gguf";
            file = listing.files().stream().filter(f -> f.path().equalsIgnoreCase(first)).findFirst().orElse(file);
        }
        return whole(file, listing);
    }

    /** The quantisations the repository offers, in its order, for "the ones available". */
    static List<String> quantisations(RepoListing listing) {
        Set<String> tags = new LinkedHashSet<>();
        for (HubFile f : listing.files()) {
            if (isModel(f) && firstOrWhole(f)) {
                Matcher m = QUANT.matcher(stem(f.name()));
                if (m.find()) {
                    tags.add(m.group(1).toUpperCase(Locale.ROOT));
                }
            }
        }
        return List.copyOf(tags);
    }

    private static Optional<HubFile> matching(List<HubFile> models, String tag) {
        // the tag as a whole name part: Q4_K matches neither Q4_K_M nor IQ4_K
        Pattern p = Pattern.compile("(?i)(?<![A-Za-z0-9])" + Pattern.quote(tag) + "[-./]");
        return models.stream().filter(f -> p.matcher(f.path()).find()).findFirst();
    }

    private static boolean firstOrWhole(HubFile f) {
        Matcher m = SPLIT.matcher(f.name());
        return !m.matches() || m.group(2).equals("00001");
    }

    /** The model file with the other parts of its split, checked to be all there. */
    private static PullPlan whole(HubFile primary, RepoListing listing) throws PullException {
        Matcher m = SPLIT.matcher(primary.name());
        List<HubFile> files = new ArrayList<>(List.of(primary));
        if (m.matches()) {
            String folder = primary.path().substring(0, primary.path().length() - primary.name().length());
            int count = Integer.parseInt(m.group(3));
            for (int i = 2; i <= count; i++) {
                String part = folder + m.group(1) + String.format(Locale.ROOT, "-%05d-of-%s.gguf", i, m.group(3));
                Optional<HubFile> found = listing.files().stream().filter(f -> f.path().equalsIgnoreCase(part))
                        .findFirst();
                if (found.isEmpty()) {
                    throw new PullException(PullException.Kind.NOT_FOUND, listing.repo() + " lists part 1 of "
                            + count + " of " + m.group(1) + " but not " + part + ": the split model is incomplete");
                }
                files.add(found.get());
            }
        }
        return new PullPlan(PullPlan.Format.GGUF, stem(primary.name()), primary, files, Optional.empty());
    }

    /** A GGUF file's name without {@code .gguf} and without a part number. */
    static String stem(String name) {
        Matcher m = SPLIT.matcher(name);
        if (m.matches()) {
            return m.group(1);
        }
        return name.toLowerCase(Locale.ROOT).endsWith(".gguf") ? name.substring(0, name.length() - 5) : name;
    }
}
