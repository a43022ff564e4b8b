/*
 * Prints the offset of every field and the size of every struct of rknn_api.h that the binding
 * lays out, one "Struct.field offset" / "Struct.sizeof size" line each (like layout_table.c for
 * rkllm.h). RknnLayoutTableTest compares the Java layouts against this table.
 */
#include <stddef.h>
#include <stdio.h>
#include "rknn_api.h"

#define SIZE(T) printf("%s.sizeof %zu\n", #T, sizeof(T))
#define FIELD(T, f) printf("%s.%s %zu\n", #T, #f, offsetof(T, f))

int main(void) {
    SIZE(rknn_input_output_num);
    FIELD(rknn_input_output_num, n_input);
    FIELD(rknn_input_output_num, n_output);

    SIZE(rknn_tensor_attr);
    FIELD(rknn_tensor_attr, index);
    FIELD(rknn_tensor_attr, n_dims);
    FIELD(rknn_tensor_attr, dims);
    FIELD(rknn_tensor_attr, name);
    FIELD(rknn_tensor_attr, n_elems);
    FIELD(rknn_tensor_attr, size);
    FIELD(rknn_tensor_attr, fmt);
    FIELD(rknn_tensor_attr, type);
    FIELD(rknn_tensor_attr, qnt_type);
    FIELD(rknn_tensor_attr, fl);
    FIELD(rknn_tensor_attr, zp);
    FIELD(rknn_tensor_attr, scale);
    FIELD(rknn_tensor_attr, w_stride);
    FIELD(rknn_tensor_attr, size_with_stride);
    FIELD(rknn_tensor_attr, pass_through);
    FIELD(rknn_tensor_attr, h_stride);

    SIZE(rknn_perf_run);
    FIELD(rknn_perf_run, run_duration);

    SIZE(rknn_sdk_version);
    FIELD(rknn_sdk_version, api_version);
    FIELD(rknn_sdk_version, drv_version);

    SIZE(rknn_input);
    FIELD(rknn_input, index);
    FIELD(rknn_input, buf);
    FIELD(rknn_input, size);
    FIELD(rknn_input, pass_through);
    FIELD(rknn_input, type);
    FIELD(rknn_input, fmt);

    SIZE(rknn_output);
    FIELD(rknn_output, want_float);
    FIELD(rknn_output, is_prealloc);
    FIELD(rknn_output, index);
    FIELD(rknn_output, buf);
    FIELD(rknn_output, size);

    SIZE(rknn_init_extend);
    FIELD(rknn_init_extend, ctx);
    FIELD(rknn_init_extend, real_model_offset);
    FIELD(rknn_init_extend, real_model_size);
    FIELD(rknn_init_extend, model_buffer_fd);
    FIELD(rknn_init_extend, model_buffer_flags);
    FIELD(rknn_init_extend, reserved);

    SIZE(rknn_run_extend);
    FIELD(rknn_run_extend, frame_id);
    FIELD(rknn_run_extend, non_block);
    FIELD(rknn_run_extend, timeout_ms);
    FIELD(rknn_run_extend, fence_fd);

    SIZE(rknn_output_extend);
    FIELD(rknn_output_extend, frame_id);
    return 0;
}
