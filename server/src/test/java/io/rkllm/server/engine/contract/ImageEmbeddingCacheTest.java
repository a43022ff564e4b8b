package io.rkllm.server.engine.contract;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class ImageEmbeddingCacheTest {
    private static float[] floats(int n, float value) {
        float[] f = new float[n];
        java.util.Arrays.fill(f, value);
        return f;
    }

    @Test
    void keepsCopiesByModelAndPicture() {
        ImageEmbeddingCache cache = new ImageEmbeddingCache(1 << 20);
        float[] a = floats(10, 1.5f);
        cache.put("m", "pic", a);
        a[0] = 9;
        assertThat(cache.get("m", "pic")).hasValueSatisfying(f -> assertThat(f[0]).isEqualTo(1.5f));
        assertThat(cache.get("other", "pic")).isEmpty();
        assertThat(cache.contains("m", "pic")).isTrue();
        assertThat(cache.usedBytes()).isEqualTo(40);
    }

    @Test
    void theLeastRecentlyUsedLeaveWhenFull() {
        ImageEmbeddingCache cache = new ImageEmbeddingCache(100);
        cache.put("m", "a", floats(10, 1));
        cache.put("m", "b", floats(10, 2));
        assertThat(cache.get("m", "a")).isPresent(); // a is now the most recent
        cache.put("m", "c", floats(10, 3));
        assertThat(cache.contains("m", "b")).isFalse();
        assertThat(cache.contains("m", "a")).isTrue();
        assertThat(cache.contains("m", "c")).isTrue();
        assertThat(cache.usedBytes()).isEqualTo(80);
        cache.put("m", "huge", floats(100, 4));
        assertThat(cache.contains("m", "huge")).as("larger than the whole cache").isFalse();
        cache.forget("m");
        assertThat(cache.size()).isZero();
        assertThat(cache.usedBytes()).isZero();
    }

    @Test
    void aCacheOfNothingKeepsNothing() {
        ImageEmbeddingCache cache = new ImageEmbeddingCache(0);
        cache.put("m", "a", floats(1, 1));
        assertThat(cache.contains("m", "a")).isFalse();
    }
}
