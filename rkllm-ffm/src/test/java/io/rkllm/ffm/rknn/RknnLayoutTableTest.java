package io.rkllm.ffm.rknn;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.lang.foreign.GroupLayout;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.PaddingLayout;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Every field offset and struct size of the RKNN layouts equals what the C compiler computes for the
 * build's rknn_api.h (the table layout_table_rknn.c writes), and the sizes are the AArch64 ones
 * compiled from Rockchip's header (research doc A.2).
 */
class RknnLayoutTableTest {

    private static Map<String, Long> table() throws IOException {
        Map<String, Long> table = new LinkedHashMap<>();
        Path file = Path.of(System.getProperty("rkllm.sim.dir", "target/sim")).resolve("layout-rknn.txt");
        for (String line : Files.readAllLines(file)) {
            String[] parts = line.trim().split(" ");
            table.put(parts[0], Long.parseLong(parts[1]));
        }
        return table;
    }

    @Test
    void everyCOffsetAndSizeMatchesTheJavaLayout() throws IOException {
        Map<String, Long> table = table();
        assertThat(table).isNotEmpty();
        for (var entry : table.entrySet()) {
            String struct = entry.getKey().substring(0, entry.getKey().indexOf('.'));
            String field = entry.getKey().substring(struct.length() + 1);
            assertThat(RknnLayouts.ALL).as("Java layout for %s", struct).containsKey(struct);
            GroupLayout layout = RknnLayouts.ALL.get(struct);
            long actual = field.equals("sizeof") ? layout.byteSize() : RknnLayouts.offset(layout, field);
            assertThat(actual).as("%s %s", struct, field).isEqualTo(entry.getValue());
        }
    }

    @Test
    void theJavaLayoutsHaveNoFieldTheCHeaderLacks() throws IOException {
        Map<String, Long> table = table();
        for (GroupLayout layout : RknnLayouts.ALL.values()) {
            String struct = layout.name().orElseThrow();
            assertThat(table).containsKey(struct + ".sizeof");
            for (MemoryLayout member : layout.memberLayouts()) {
                if (!(member instanceof PaddingLayout)) {
                    assertThat(table).containsKey(struct + "." + member.name().orElseThrow());
                }
            }
        }
    }

    @Test
    void sizesAreTheRealHeadersOnes() {
        assertThat(RknnLayouts.TENSOR_ATTR.byteSize()).isEqualTo(376);
        assertThat(RknnLayouts.offset(RknnLayouts.TENSOR_ATTR, "h_stride")).isEqualTo(372);
        assertThat(RknnLayouts.offset(RknnLayouts.TENSOR_ATTR, "zp")).isEqualTo(352);
        assertThat(RknnLayouts.INPUT.byteSize()).isEqualTo(32);
        assertThat(RknnLayouts.offset(RknnLayouts.INPUT, "fmt")).isEqualTo(28);
        assertThat(RknnLayouts.OUTPUT.byteSize()).isEqualTo(24);
        assertThat(RknnLayouts.offset(RknnLayouts.OUTPUT, "buf")).isEqualTo(8);
        assertThat(RknnLayouts.INPUT_OUTPUT_NUM.byteSize()).isEqualTo(8);
        assertThat(RknnLayouts.SDK_VERSION.byteSize()).isEqualTo(512);
        assertThat(RknnLayouts.INIT_EXTEND.byteSize()).isEqualTo(136);
        assertThat(RknnLayouts.RUN_EXTEND.byteSize()).isEqualTo(24);
        assertThat(RknnLayouts.OUTPUT_EXTEND.byteSize()).isEqualTo(8);
        assertThat(RknnLayouts.PERF_RUN.byteSize()).isEqualTo(8);
    }
}
