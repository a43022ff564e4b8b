package io.rkllm.server.pipeline.embedding;

import io.rkllm.server.models.EmbeddingSettings;
import java.util.Arrays;
import java.util.List;

/** Pooling, shortening and L2 normalisation of hidden-layer rows, in floats as the runtime gives them. */
final class Vectors {
    private Vectors() {
    }

    /**
     * The vector of one text: the last row (a copy), the first (CLS), or the mean of every row (summed in doubles).
     * A backend that pooled already gives one row, which every pooling leaves as it is.
     */
    static float[] pool(EmbeddingSettings.Pooling pooling, List<float[]> rows) {
        if (rows.isEmpty()) {
            throw new IllegalArgumentException("no rows to pool");
        }
        if (pooling == EmbeddingSettings.Pooling.LAST || pooling == EmbeddingSettings.Pooling.RANK) {
            return rows.getLast().clone();
        }
        if (pooling == EmbeddingSettings.Pooling.CLS) {
            return rows.getFirst().clone();
        }
        int width = rows.getFirst().length;
        double[] sum = new double[width];
        for (float[] row : rows) {
            for (int i = 0; i < width; i++) {
                sum[i] += row[i];
            }
        }
        float[] mean = new float[width];
        for (int i = 0; i < width; i++) {
            mean[i] = (float) (sum[i] / rows.size());
        }
        return mean;
    }

    /** The first {@code dimensions} values (a Matryoshka-trained model keeps its meaning in the first ones). */
    static float[] shorten(float[] vector, int dimensions) {
        return dimensions >= vector.length ? vector : Arrays.copyOf(vector, dimensions);
    }

    /** Scales the vector to length 1 in place; a zero vector stays as it is. */
    static float[] normalize(float[] vector) {
        double sum = 0;
        for (float v : vector) {
            sum += (double) v * v;
        }
        if (sum > 0) {
            double scale = 1 / Math.sqrt(sum);
            for (int i = 0; i < vector.length; i++) {
                vector[i] = (float) (vector[i] * scale);
            }
        }
        return vector;
    }
}
