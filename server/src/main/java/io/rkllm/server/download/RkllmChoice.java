package io.rkllm.server.download;

import io.rkllm.server.models.ContextLengthHints;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Predicate;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Which {@code .rkllm} file of a repository fits this board, when the conversions people publish hold several:
 * the tag named ({@code :w4a16}), then the chip the file was converted for (a name without a chip fits any), then
 * the runtime release (a conversion for 1.1 does not load on 1.2: the same major and minor release, the closest
 * one not newer than the runtime first), then {@code w8a8}, the toolkit's default. Still several: the user names
 * one. A vision model's image encoder ({@code .rknn}) for the same chip comes with it, and the repository's own
 * {@code model.yaml}; when the repository's name states the context length the file's name does not, a
 * {@code model.yaml} says it (discovery reads names, and the folder is named after the file).
 */
final class RkllmChoice {
    private static final Pattern VERSION = Pattern.compile("(?<![0-9.])v?(1)\\.(\\d{1,2})\\.(\\d{1,2})(?![0-9])");
    private static final Pattern W8A8 = Pattern.compile("(?i)(?<![a-z0-9])w8a8(?![a-z0-9])(?![-_]g\\d)");

    private RkllmChoice() {
    }

    static boolean has(RepoListing listing) {
        return listing.files().stream().anyMatch(RkllmChoice::isModel);
    }

    private static boolean isModel(HubFile f) {
        return f.name().toLowerCase(Locale.ROOT).endsWith(".rkllm");
    }

    /** The file that fits; empty when the tag matches none. */
    static Optional<PullPlan> plan(ModelName name, RepoListing listing, Board board) throws PullException {
        List<HubFile> files = listing.files().stream().filter(RkllmChoice::isModel).toList();
        if (name.tag().isPresent()) {
            Pattern tag = Pattern.compile("(?i)(?<![a-z0-9])" + Pattern.quote(name.tag().get()) + "(?![a-z0-9])");
            files = files.stream().filter(f -> tag.matcher(f.path()).find()).toList();
            if (files.isEmpty()) {
                return Optional.empty();
            }
        }
        List<HubFile> all = files;
        if (board.platform().isPresent()) {
            String chip = board.platform().get();
            files = files.stream().filter(f -> fitsChip(f.path(), chip)).toList();
            if (files.isEmpty()) {
                throw new PullException(PullException.Kind.NOT_FOUND, listing.repo() + " has no .rkllm file for "
                        + chip.toUpperCase(Locale.ROOT) + " (this board): its files are for " + chips(all)
                        + "; look for a conversion for " + chip.toUpperCase(Locale.ROOT));
            }
        }
        if (board.runtimeVersion().isPresent()) {
            files = byRuntime(files, listing, board.runtimeVersion().get());
        }
        if (files.size() > 1 && name.tag().isEmpty()) {
            List<HubFile> plain = files.stream().filter(f -> W8A8.matcher(f.name()).find()).toList();
            if (!plain.isEmpty()) {
                files = plain;
            }
        }
        if (files.size() > 1) {
            throw new PullException(PullException.Kind.AMBIGUOUS, files.size() + " files of " + listing.repo()
                    + " fit this board: " + files.stream().map(HubFile::path).toList() + "; name one: "
                    + listing.repo() + "/" + files.getFirst().path());
        }
        return Optional.of(planFile(files.getFirst(), listing, board));
    }

    /** The plan for a file named in full: it, its image encoder, the repository's sidecar. */
    static PullPlan planFile(HubFile model, RepoListing listing, Board board) {
        List<HubFile> files = new ArrayList<>(List.of(model));
        encoder(model, listing, board).ifPresent(files::add);
        String dir = model.path().substring(0, model.path().length() - model.name().length());
        String stem = model.name().substring(0, model.name().length() - ".rkllm".length());
        Optional<HubFile> sidecar = listing.files().stream()
                .filter(f -> f.path().equals(dir + stem + ".model.yaml")).findFirst()
                .or(() -> listing.files().stream().filter(f -> f.path().equals(dir + "model.yaml")).findFirst());
        sidecar.ifPresent(files::add);
        Optional<String> written = Optional.empty();
        OptionalInt repoContext = ContextLengthHints.fromName(listing.repo().substring(listing.repo().indexOf('/') + 1));
        if (sidecar.isEmpty() && ContextLengthHints.fromName(stem).isEmpty() && repoContext.isPresent()) {
            written = Optional.of("# written by rkllm-server pull: the context length " + listing.repo()
                    + "'s name states\ncontext_length: " + repoContext.getAsInt() + "\n");
        }
        return new PullPlan(PullPlan.Format.RKLLM, stem, model, files, written);
    }

    /** The image encoder of a vision model: the one {@code .rknn} for the chip, else the closest by name. */
    private static Optional<HubFile> encoder(HubFile model, RepoListing listing, Board board) {
        List<HubFile> encoders = listing.files().stream().filter(f -> f.name().toLowerCase(Locale.ROOT)
                .endsWith(".rknn")).filter(f -> board.platform().map(c -> fitsChip(f.path(), c)).orElse(true))
                .filter(f -> chipsOf(model.path()).isEmpty() || chipsOf(f.path()).isEmpty()
                        || chipsOf(f.path()).equals(chipsOf(model.path()))).toList();
        String name = model.name().toLowerCase(Locale.ROOT);
        return encoders.stream().max(Comparator.comparingInt((HubFile f) -> commonPrefix(name,
                f.name().toLowerCase(Locale.ROOT))).thenComparing(HubFile::path, Comparator.reverseOrder()));
    }

    private static int commonPrefix(String a, String b) {
        int n = 0;
        while (n < a.length() && n < b.length() && a.charAt(n) == b.charAt(n)) {
            n++;
        }
        return n;
    }

    /** Files for the runtime's release line; a repository whose files are all for another line is refused. */
    private static List<HubFile> byRuntime(List<HubFile> files, RepoListing listing, String runtime)
            throws PullException {
        Optional<int[]> wanted = version(runtime);
        if (wanted.isEmpty()) {
            return files;
        }
        String repoName = listing.repo();
        List<HubFile> sameLine = new ArrayList<>();
        List<HubFile> unversioned = new ArrayList<>();
        Set<String> lines = new TreeSet<>();
        for (HubFile f : files) {
            Optional<int[]> v = version(f.path()).or(() -> version(repoName));
            if (v.isEmpty()) {
                unversioned.add(f);
            } else if (v.get()[0] == wanted.get()[0] && v.get()[1] == wanted.get()[1]) {
                sameLine.add(f);
            } else {
                lines.add(v.get()[0] + "." + v.get()[1]);
            }
        }
        if (sameLine.isEmpty() && unversioned.isEmpty()) {
            throw new PullException(PullException.Kind.NOT_FOUND, listing.repo() + "'s .rkllm files were converted"
                    + " for runtime " + String.join(", ", lines) + ".x, and this board's runtime is " + runtime
                    + ": look for a conversion for " + wanted.get()[0] + "." + wanted.get()[1] + " (or name the file"
                    + " to pull it anyway)");
        }
        if (sameLine.isEmpty()) {
            return unversioned;
        }
        // the closest release not newer than the runtime, else the oldest newer one
        int target = wanted.get()[2];
        Predicate<HubFile> notNewer = f -> patch(f, repoName) <= target;
        List<HubFile> older = sameLine.stream().filter(notNewer).toList();
        int best = older.isEmpty() ? sameLine.stream().mapToInt(f -> patch(f, repoName)).min().orElse(0)
                : older.stream().mapToInt(f -> patch(f, repoName)).max().orElse(0);
        return sameLine.stream().filter(f -> patch(f, repoName) == best).toList();
    }

    private static int patch(HubFile f, String repo) {
        return version(f.path()).or(() -> version(repo)).map(v -> v[2]).orElse(0);
    }

    private static Optional<int[]> version(String text) {
        Matcher m = VERSION.matcher(text);
        int[] last = null;
        while (m.find()) {
            last = new int[] {Integer.parseInt(m.group(1)), Integer.parseInt(m.group(2)), Integer.parseInt(m.group(3))};
        }
        return Optional.ofNullable(last);
    }

    private static boolean fitsChip(String path, String chip) {
        Set<String> chips = chipsOf(path);
        return chips.isEmpty() || chips.contains(chip);
    }

    private static Set<String> chipsOf(String path) {
        Set<String> chips = new TreeSet<>();
        Matcher m = Board.CHIP.matcher(path.toLowerCase(Locale.ROOT));
        while (m.find()) {
            chips.add(m.group(1));
        }
        return chips;
    }

    private static String chips(List<HubFile> files) {
        Set<String> all = new TreeSet<>();
        files.forEach(f -> all.addAll(chipsOf(f.path())));
        return all.isEmpty() ? "no chip" : String.join(", ", all.stream().map(c -> c.toUpperCase(Locale.ROOT)).toList());
    }
}
