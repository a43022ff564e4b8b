package io.rkllm.server.engine.contract;

/** A setting of {@code auto}, {@code on} or {@code off}, as the configuration writes the ones the runtime decides. */
public final class AutoSetting {
    private AutoSetting() {
    }

    /** Whether {@code setting} holds, {@code auto} (or anything else) being {@code byDefault}. */
    public static boolean on(String setting, boolean byDefault) {
        return switch (setting) {
            case "on", "true" -> true;
            case "off", "false" -> false;
            default -> byDefault;
        };
    }
}
