package io.rkllm.server.download;

import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * What a pull names, parsed and checked before anything is asked of the Hub: a repository {@code OWNER/REPO}, and
 * in it a quantisation tag ({@code OWNER/REPO:Q4_K_M}) or one file ({@code OWNER/REPO/FILE}). Written as Ollama
 * writes it ({@code hf.co/OWNER/REPO:TAG}), bare, or as a Hub address ({@code https://huggingface.co/OWNER/REPO},
 * {@code .../resolve/REV/FILE}, {@code .../blob/REV/FILE}).
 *
 * @param repo     {@code OWNER/REPO}
 * @param tag      the quantisation (or other name part) asked for; empty for the default ({@code :latest} too)
 * @param file     a file's path in the repository, when one is named
 * @param revision the branch, tag or commit to read ({@code main} unless an address names one)
 */
public record ModelName(String repo, Optional<String> tag, Optional<String> file, String revision) {
    /** The Hub's own rule for owner and repository names (letters, digits, {@code - _ .}, no {@code ..} or {@code --}). */
    private static final Pattern PART = Pattern.compile("[A-Za-z0-9](?:[A-Za-z0-9._-]{0,94}[A-Za-z0-9])?");
    private static final Pattern TAG = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._-]{0,63}");
    private static final Pattern REVISION = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._/-]{0,127}");
    private static final List<String> PREFIXES = List.of("https://huggingface.co/", "http://huggingface.co/",
            "https://hf.co/", "http://hf.co/", "huggingface.co/", "hf.co/");
    private static final String USAGE = "name a model as OWNER/REPO, OWNER/REPO:QUANT or OWNER/REPO/FILE (also"
            + " hf.co/OWNER/REPO:QUANT, as Ollama writes it), or by its name in Ollama's library, MODEL[:TAG]"
            + " (qwen3:4b)";

    /**
     * Parses a model name.
     *
     * @throws PullException {@link PullException.Kind#INVALID} saying what is wrong with it
     */
    public static ModelName parse(String text) throws PullException {
        String s = text == null ? "" : text.strip();
        if (s.isEmpty()) {
            throw invalid("no model named: " + USAGE);
        }
        if (s.chars().anyMatch(c -> c < 0x20 || c == 0x7f)) {
            throw invalid("the model name has control characters: " + USAGE);
        }
        if (s.startsWith("/") || s.startsWith("~") || s.matches("(?i)[a-z]:[\\\\/].*") || s.startsWith("file:")) {
            throw invalid("'" + s + "' is a path on this machine, not a model on the Hub: " + USAGE);
        }
        for (String prefix : PREFIXES) {
            if (s.regionMatches(true, 0, prefix, 0, prefix.length())) {
                s = s.substring(prefix.length());
                break;
            }
        }
        if (s.contains("\\")) {
            throw invalid("'" + text.strip() + "' has a backslash: " + USAGE);
        }
        String[] parts = s.split("/", -1);
        if (parts.length < 2 || parts[0].isEmpty() || parts[1].isEmpty()) {
            throw invalid("'" + text.strip() + "' names no repository: " + USAGE);
        }
        String owner = parts[0];
        String repoPart = parts[1];
        Optional<String> tag = Optional.empty();
        int colon = repoPart.indexOf(':');
        if (colon >= 0) {
            tag = Optional.of(repoPart.substring(colon + 1));
            repoPart = repoPart.substring(0, colon);
        }
        checkPart(owner, "owner", text);
        checkPart(repoPart, "repository", text);
        String repo = owner + "/" + repoPart;
        String revision = "main";
        Optional<String> file = Optional.empty();
        if (parts.length > 2) {
            List<String> rest = List.of(parts).subList(2, parts.length);
            if (tag.isPresent()) {
                throw invalid("'" + text.strip() + "' has both a :tag and a file: name one of them");
            }
            if (rest.size() >= 3 && (rest.get(0).equals("resolve") || rest.get(0).equals("blob"))) {
                revision = rest.get(1);
                rest = rest.subList(2, rest.size());
                if (!REVISION.matcher(revision).matches() || revision.contains("..")) {
                    throw invalid("'" + revision + "' is not a revision of the Hub");
                }
            }
            String path = String.join("/", rest);
            if (!path.isEmpty()) {
                file = Optional.of(checkFile(path));
            }
        }
        if (tag.isPresent()) {
            String t = tag.get();
            if (!TAG.matcher(t).matches()) {
                throw invalid("':" + t + "' is not a quantisation tag (letters, digits, '-', '_', '.', e.g. :Q4_K_M)");
            }
            if (t.equalsIgnoreCase("latest")) {
                tag = Optional.empty();
            }
        }
        return new ModelName(repo, tag, file, revision);
    }

    private static void checkPart(String part, String what, String text) throws PullException {
        if (part.equals("..") || part.equals(".")) {
            throw invalid("'..' and '.' are not names: " + USAGE);
        }
        if (!PART.matcher(part).matches() || part.contains("..") || part.contains("--")) {
            throw invalid("'" + part + "' in '" + text.strip() + "' is not a Hub " + what + " name (letters, digits,"
                    + " '-', '_', '.'; no '..' or '--'; at most 96 characters)");
        }
    }

    /** A file's path in a repository: relative, without {@code .} or {@code ..} parts. */
    private static String checkFile(String path) throws PullException {
        if (path.length() > 1000) {
            throw invalid("the file name is longer than 1000 characters");
        }
        for (String segment : path.split("/", -1)) {
            if (segment.isEmpty() || segment.equals(".") || segment.equals("..")) {
                throw invalid("'" + path + "' is not a file in a repository: '..', '.' and empty parts are not"
                        + " allowed");
            }
        }
        return path;
    }

    private static PullException invalid(String message) {
        return new PullException(PullException.Kind.INVALID, message);
    }

    /** The repository's name without its owner. */
    public String repoName() {
        return repo.substring(repo.indexOf('/') + 1);
    }

    /** How the user wrote it, normalised: {@code OWNER/REPO:TAG} or {@code OWNER/REPO/FILE}. */
    public String display() {
        return repo + tag.map(t -> ":" + t).orElse("") + file.map(f -> "/" + f).orElse("");
    }

    /** The tag upper-cased, as quantisation names are written ({@code q4_k_m} means {@code Q4_K_M}). */
    Optional<String> upperTag() {
        return tag.map(t -> t.toUpperCase(Locale.ROOT));
    }
}
