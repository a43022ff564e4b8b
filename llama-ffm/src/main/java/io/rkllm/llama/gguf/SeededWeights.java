package io.rkllm.llama.gguf;

/** SplitMix64 and Box-Muller: the same weights from the same seed on every JVM. */
final class SeededWeights {
    private long state;

    SeededWeights(long seed) {
        this.state = seed;
    }

    private long next() {
        long z = (state += 0x9E3779B97F4A7C15L);
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return z ^ (z >>> 31);
    }

    private double uniform() {
        return ((next() >>> 11) + 0.5) / (1L << 53);
    }

    float[] normal(int n, float std) {
        float[] values = new float[n];
        for (int i = 0; i < n; i += 2) {
            double radius = Math.sqrt(-2 * Math.log(uniform()));
            double angle = 2 * Math.PI * uniform();
            values[i] = (float) (radius * Math.cos(angle) * std);
            if (i + 1 < n) {
                values[i + 1] = (float) (radius * Math.sin(angle) * std);
            }
        }
        return values;
    }
}
