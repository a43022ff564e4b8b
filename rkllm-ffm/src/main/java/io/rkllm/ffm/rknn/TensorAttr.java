package io.rkllm.ffm.rknn;

import java.util.List;

/**
 * What {@code rknn_query} tells of one input or output tensor ({@code rknn_tensor_attr}).
 *
 * @param dims the first {@code n_dims} dimensions
 * @param sizeBytes the tensor's size in its own type
 */
public record TensorAttr(int index, List<Integer> dims, String name, int elements, int sizeBytes,
                         TensorFormat format, TensorType type) {
    public TensorAttr {
        dims = List.copyOf(dims);
    }
}
