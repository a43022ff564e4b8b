package io.rkllm.server.backend.llama;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A GGUF model split into parts as llama.cpp's {@code gguf-split} names them, {@code PREFIX-00001-of-00003.gguf} and
 * on: llama.cpp loads it through the first part, which finds the others beside it by those names.
 *
 * @param number this file's part, from 1
 * @param count  the parts of the model
 */
record SplitParts(Path file, String prefix, int number, int count) {
    /** As llama.cpp finds the parts: exactly these digits and this case, or it refuses the name. */
    private static final Pattern NAME = Pattern.compile("(.*)-(\\d{5})-of-(\\d{5})\\.gguf");

    /** The part {@code file} is, when its name says it is one of several. */
    static Optional<SplitParts> of(Path file) {
        Matcher m = NAME.matcher(file.getFileName().toString());
        if (!m.matches()) {
            return Optional.empty();
        }
        int number = Integer.parseInt(m.group(2));
        int count = Integer.parseInt(m.group(3));
        return count > 1 && number >= 1 && number <= count
                ? Optional.of(new SplitParts(file, m.group(1), number, count)) : Optional.empty();
    }

    boolean first() {
        return number == 1;
    }

    /** The first part, which llama.cpp loads the model through. */
    Path firstPart() {
        return part(1);
    }

    /** The other parts, where llama.cpp looks for them: beside the first, by the names gguf-split gives them. */
    List<Path> later() {
        List<Path> parts = new ArrayList<>();
        for (int n = 2; n <= count; n++) {
            parts.add(part(n));
        }
        return parts;
    }

    private Path part(int n) {
        return file.resolveSibling(String.format(Locale.ROOT, "%s-%05d-of-%05d.gguf", prefix, n, count));
    }
}
