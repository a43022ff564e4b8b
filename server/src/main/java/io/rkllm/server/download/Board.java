package io.rkllm.server.download;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What decides which {@code .rkllm} file of a repository fits this machine: the chip the files were converted for
 * ({@code rk3588}, {@code rk3576}) and the RKLLM runtime release that will run them ({@code 1.2.1}).
 *
 * @param platform       the chip, lower case; empty off a Rockchip board (then no file is ruled out by its chip)
 * @param runtimeVersion the runtime release; empty when no runtime was identified
 */
public record Board(Optional<String> platform, Optional<String> runtimeVersion) {
    public static final Board UNKNOWN = new Board(Optional.empty(), Optional.empty());

    /** A chip name as Rockchip writes it in device trees and model names ({@code rk3588s} is an RK3588). */
    static final Pattern CHIP = Pattern.compile("(?<![a-z0-9])(rk\\d{4}|rv\\d{4})[a-z]?(?![0-9])");

    /** The chip of a device tree's {@code compatible} list ({@code /proc/device-tree/compatible}), if Rockchip's. */
    public static Optional<String> platformOf(Path compatible) {
        try {
            String text = new String(Files.readAllBytes(compatible), StandardCharsets.US_ASCII)
                    .toLowerCase(Locale.ROOT).replace('\0', ' ');
            Matcher m = Pattern.compile("rockchip,(rk\\d{4}|rv\\d{4})").matcher(text);
            return m.find() ? Optional.of(m.group(1)) : Optional.empty();
        } catch (IOException | SecurityException e) {
            return Optional.empty();
        }
    }
}
