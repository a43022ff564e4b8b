package io.rkllm.server.tools.doctor;

import io.rkllm.server.engine.contract.SystemRoots;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Whether the installed service starts from a class-data-sharing archive made for its jar: with one it
 * is ready in about half a second, without one in about a second and with 3 MB more until it has
 * stopped once (docs/performance.md, "Footprint"). It reads the unit's JVM options, and those of
 * /etc/default/rkllm-server, the way systemd hands them to the service.
 */
final class ArchiveCheck {
    /** Where the package ({@code /usr/lib}, {@code /lib}) and the install script ({@code /etc}) put the unit. */
    static final List<String> UNITS = List.of("/etc/systemd/system/rkllm-server.service",
            "/usr/lib/systemd/system/rkllm-server.service", "/lib/systemd/system/rkllm-server.service");
    private static final String OPTIONS = "RKLLM_JAVA_OPTS=";
    private static final Pattern ARCHIVE = Pattern.compile("-XX:SharedArchiveFile=(\\S+)");
    private static final Pattern LAUNCHER = Pattern.compile("(?m)^ExecStart=(\\S+)");

    private final SystemRoots roots;

    ArchiveCheck(SystemRoots roots) {
        this.roots = roots;
    }

    /** Nothing when this machine has no rkllm-server service; {@code jar}: the jar the service runs, if known. */
    Optional<Check> check(Optional<Path> jar) {
        Optional<String> unit = UNITS.stream().filter(u -> Files.isRegularFile(roots.resolve(u))).findFirst();
        if (unit.isEmpty()) {
            return Optional.empty();
        }
        String unitText;
        try {
            unitText = Files.readString(roots.resolve(unit.get()));
        } catch (IOException e) {
            return Optional.of(Check.warn("archive", "cannot read " + unit.get() + ": " + e.getMessage(),
                    "check the file's permissions"));
        }
        String options = lastValue(unitText, "Environment=\"" + OPTIONS).orElse("");
        try {
            Path defaults = roots.etc().resolve("default/rkllm-server");
            if (Files.isReadable(defaults)) {
                options = lastValue(Files.readString(defaults), OPTIONS).orElse(options);
            }
        } catch (IOException e) {
            // the unit's options stand
        }
        Matcher archive = ARCHIVE.matcher(options);
        if (!archive.find()) {
            return Optional.of(Check.info("archive", "the service's JVM options name no class-data-sharing archive:"
                    + " each start loads every class from the jar (about a second)"));
        }
        String path = archive.group(1);
        Path file = roots.resolve(path);
        Matcher launcher = LAUNCHER.matcher(unitText);
        String remake = "sudo " + jar.map(j -> j.resolveSibling("prepare-cds-archive").toString())
                .orElse("/usr/share/rkllm-server/prepare-cds-archive") + " " + unit.get() + " "
                + (launcher.find() ? launcher.group(1) : "/usr/bin/rkllm-server");
        if (!Files.isRegularFile(file)) {
            return Optional.of(Check.warn("archive", "no class-data-sharing archive " + path + " yet: the service's"
                    + " first start takes about a second and 3 MB more (it makes the archive when it stops)", remake));
        }
        try {
            if (jar.isPresent() && Files.isRegularFile(jar.get())
                    && Files.getLastModifiedTime(file).compareTo(Files.getLastModifiedTime(jar.get())) < 0) {
                return Optional.of(Check.warn("archive", "the class-data-sharing archive " + path + " is older than "
                        + jar.get() + ": the next start ignores it and makes a new one when it stops", remake));
            }
        } catch (IOException e) {
            // cannot compare: say what is known
        }
        return Optional.of(Check.ok("archive", path + " is there" + (jar.isPresent() ? ", made after the jar" : "")
                + ": the service starts in about half a second"));
    }

    /** The value of the last {@code prefix...} line, without its closing quote (systemd and sh quoting). */
    private static Optional<String> lastValue(String text, String prefix) {
        String found = null;
        for (String line : text.lines().map(String::strip).toList()) {
            if (line.startsWith(prefix)) {
                found = line.substring(prefix.length());
            }
        }
        if (found == null) {
            return Optional.empty();
        }
        if (found.length() >= 2 && found.startsWith("\"") && found.endsWith("\"")) {
            found = found.substring(1, found.length() - 1);
        } else if (found.endsWith("\"") && !found.startsWith("\"")) {
            found = found.substring(0, found.length() - 1);
        }
        return Optional.of(found);
    }
}
