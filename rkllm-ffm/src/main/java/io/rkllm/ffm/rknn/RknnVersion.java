package io.rkllm.ffm.rknn;

/** {@code RKNN_QUERY_SDK_VERSION}: the runtime's version (e.g. "2.3.2 (429f97ae6b@2025-04-09T09:09:27)") and the NPU driver's. */
public record RknnVersion(String api, String driver) {
}
