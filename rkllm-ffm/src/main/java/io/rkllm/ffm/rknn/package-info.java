/**
 * The binding to Rockchip's RKNN runtime ({@code librknnrt.so} 2.3.x) for the image encoder of a
 * vision-language model: hand-written layouts and downcalls of the eight functions an encoder needs,
 * checked against a C header compiled in the build ({@code RknnLayoutTableTest}), and
 * {@link io.rkllm.ffm.rknn.ImageEncoder}, which turns RGB bytes into the embeddings that
 * {@code rkllm_run} takes as multimodal input. Native types stay in this package and
 * {@code io.rkllm.ffm}. See docs/rknn-runtime.md.
 */
package io.rkllm.ffm.rknn;
