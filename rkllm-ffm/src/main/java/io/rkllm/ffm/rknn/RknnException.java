package io.rkllm.ffm.rknn;

/** A call into the RKNN runtime failed; the message says which call, with the runtime's code by name. */
public class RknnException extends RuntimeException {
    private final int code;

    public RknnException(String message, int code) {
        super(message);
        this.code = code;
    }

    /** "{@code function} failed: RKNN_ERR_NAME (code)". */
    public static RknnException of(String function, int code) {
        return new RknnException(function + " failed: " + codeName(code) + " (" + code + ")", code);
    }

    /** The runtime's return code (RKNN_ERR_*), or -1 when the failure was not a return code. */
    public int code() {
        return code;
    }

    public static String codeName(int code) {
        return switch (code) {
            case 0 -> "RKNN_SUCC";
            case -1 -> "RKNN_ERR_FAIL";
            case -2 -> "RKNN_ERR_TIMEOUT";
            case -3 -> "RKNN_ERR_DEVICE_UNAVAILABLE";
            case -4 -> "RKNN_ERR_MALLOC_FAIL";
            case -5 -> "RKNN_ERR_PARAM_INVALID";
            case -6 -> "RKNN_ERR_MODEL_INVALID";
            case -7 -> "RKNN_ERR_CTX_INVALID";
            case -8 -> "RKNN_ERR_INPUT_INVALID";
            case -9 -> "RKNN_ERR_OUTPUT_INVALID";
            case -10 -> "RKNN_ERR_DEVICE_UNMATCH";
            case -11 -> "RKNN_ERR_INCOMPATILE_PRE_COMPILE_MODEL";
            case -12 -> "RKNN_ERR_INCOMPATILE_OPTIMIZATION_LEVEL_VERSION";
            case -13 -> "RKNN_ERR_TARGET_PLATFORM_UNMATCH";
            default -> "unknown error";
        };
    }
}
