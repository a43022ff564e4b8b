package io.rkllm.ffm;

import java.util.Optional;
import java.util.OptionalInt;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What the runtime prints about itself at {@code rkllm_init}: its version line and the model's
 * toolkit line. Real hardware prints e.g.
 * {@code I rkllm: rkllm-runtime version: 1.2.3, rknpu driver version: 0.9.8, platform: RK3588}.
 */
public record RuntimeBanner(Optional<String> runtimeVersionLine, Optional<String> runtimeVersion,
                            Optional<String> driverVersion, Optional<String> platform,
                            Optional<String> toolkitVersion, OptionalInt maxContextLimit, String rawOutput) {

    private static final Pattern RUNTIME = Pattern.compile(
            "rkllm-runtime version: *([^,\\s]+)(?:, *rknpu driver version: *([^,\\s]+))?(?:, *platform: *([^,\\s]+))?");
    private static final Pattern TOOLKIT = Pattern.compile("rkllm-toolkit version: *([^,\\s]+)");
    private static final Pattern LIMIT = Pattern.compile("max_context_limit: *(\\d+)");

    public static RuntimeBanner parse(String output) {
        Optional<String> line = output.lines().filter(l -> l.contains("rkllm-runtime version")).findFirst()
                .map(String::strip);
        Matcher runtime = RUNTIME.matcher(output);
        boolean hasRuntime = runtime.find();
        Matcher toolkit = TOOLKIT.matcher(output);
        Matcher limit = LIMIT.matcher(output);
        return new RuntimeBanner(line,
                hasRuntime ? Optional.of(runtime.group(1)) : Optional.empty(),
                hasRuntime ? Optional.ofNullable(runtime.group(2)) : Optional.empty(),
                hasRuntime ? Optional.ofNullable(runtime.group(3)) : Optional.empty(),
                toolkit.find() ? Optional.of(toolkit.group(1)) : Optional.empty(),
                limit.find() ? OptionalInt.of(Integer.parseInt(limit.group(1))) : OptionalInt.empty(),
                output);
    }
}
