package io.rkllm.ffm.rknn;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_FLOAT;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.GroupLayout;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemoryLayout.PathElement;
import java.lang.foreign.StructLayout;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The structs of rknn_api.h (RKNN runtime 2.3.x, 64-bit targets) as FFM layouts, field names exactly as
 * in C, padding explicit. {@code RknnLayoutTableTest} checks every offset and size against the C
 * compiler's view of the build's header.
 */
final class RknnLayouts {
    static final int MAX_DIMS = 16;
    static final int MAX_NAME_LEN = 256;

    static final StructLayout INPUT_OUTPUT_NUM = MemoryLayout.structLayout(
            JAVA_INT.withName("n_input"),
            JAVA_INT.withName("n_output")).withName("rknn_input_output_num");

    static final StructLayout TENSOR_ATTR = MemoryLayout.structLayout(
            JAVA_INT.withName("index"),
            JAVA_INT.withName("n_dims"),
            MemoryLayout.sequenceLayout(MAX_DIMS, JAVA_INT).withName("dims"),
            MemoryLayout.sequenceLayout(MAX_NAME_LEN, JAVA_BYTE).withName("name"),
            JAVA_INT.withName("n_elems"),
            JAVA_INT.withName("size"),
            JAVA_INT.withName("fmt"),
            JAVA_INT.withName("type"),
            JAVA_INT.withName("qnt_type"),
            JAVA_BYTE.withName("fl"),
            MemoryLayout.paddingLayout(3),
            JAVA_INT.withName("zp"),
            JAVA_FLOAT.withName("scale"),
            JAVA_INT.withName("w_stride"),
            JAVA_INT.withName("size_with_stride"),
            JAVA_BYTE.withName("pass_through"),
            MemoryLayout.paddingLayout(3),
            JAVA_INT.withName("h_stride")).withName("rknn_tensor_attr");

    static final StructLayout PERF_RUN = MemoryLayout.structLayout(
            JAVA_LONG.withName("run_duration")).withName("rknn_perf_run");

    static final StructLayout SDK_VERSION = MemoryLayout.structLayout(
            MemoryLayout.sequenceLayout(256, JAVA_BYTE).withName("api_version"),
            MemoryLayout.sequenceLayout(256, JAVA_BYTE).withName("drv_version")).withName("rknn_sdk_version");

    static final StructLayout INPUT = MemoryLayout.structLayout(
            JAVA_INT.withName("index"),
            MemoryLayout.paddingLayout(4),
            ADDRESS.withName("buf"),
            JAVA_INT.withName("size"),
            JAVA_BYTE.withName("pass_through"),
            MemoryLayout.paddingLayout(3),
            JAVA_INT.withName("type"),
            JAVA_INT.withName("fmt")).withName("rknn_input");

    static final StructLayout OUTPUT = MemoryLayout.structLayout(
            JAVA_BYTE.withName("want_float"),
            JAVA_BYTE.withName("is_prealloc"),
            MemoryLayout.paddingLayout(2),
            JAVA_INT.withName("index"),
            ADDRESS.withName("buf"),
            JAVA_INT.withName("size"),
            MemoryLayout.paddingLayout(4)).withName("rknn_output");

    static final StructLayout INIT_EXTEND = MemoryLayout.structLayout(
            JAVA_LONG.withName("ctx"),
            JAVA_INT.withName("real_model_offset"),
            JAVA_INT.withName("real_model_size"),
            JAVA_INT.withName("model_buffer_fd"),
            JAVA_INT.withName("model_buffer_flags"),
            MemoryLayout.sequenceLayout(112, JAVA_BYTE).withName("reserved")).withName("rknn_init_extend");

    static final StructLayout RUN_EXTEND = MemoryLayout.structLayout(
            JAVA_LONG.withName("frame_id"),
            JAVA_INT.withName("non_block"),
            JAVA_INT.withName("timeout_ms"),
            JAVA_INT.withName("fence_fd"),
            MemoryLayout.paddingLayout(4)).withName("rknn_run_extend");

    static final StructLayout OUTPUT_EXTEND = MemoryLayout.structLayout(
            JAVA_LONG.withName("frame_id")).withName("rknn_output_extend");

    /** Every layout by its C name. */
    static final Map<String, GroupLayout> ALL = index(INPUT_OUTPUT_NUM, TENSOR_ATTR, PERF_RUN, SDK_VERSION, INPUT,
            OUTPUT, INIT_EXTEND, RUN_EXTEND, OUTPUT_EXTEND);

    private RknnLayouts() {
    }

    static long offset(GroupLayout layout, String field) {
        return layout.byteOffset(PathElement.groupElement(field));
    }

    private static Map<String, GroupLayout> index(GroupLayout... layouts) {
        Map<String, GroupLayout> all = new LinkedHashMap<>();
        for (GroupLayout layout : layouts) {
            all.put(layout.name().orElseThrow(), layout);
        }
        return Map.copyOf(all);
    }
}
