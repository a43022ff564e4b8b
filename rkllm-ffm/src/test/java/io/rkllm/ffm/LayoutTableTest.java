package io.rkllm.ffm;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.lang.foreign.GroupLayout;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.PaddingLayout;
import java.lang.foreign.UnionLayout;
import java.nio.file.Files;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Every field offset and struct size of the Java layouts equals what the C compiler computes for
 * the simulated runtime's header (the table written by layout_table.c during the build), and the
 * headline sizes equal the ABI document's.
 */
class LayoutTableTest {

    private static Map<String, Long> table(Abi abi) throws IOException {
        Map<String, Long> table = new LinkedHashMap<>();
        for (String line : Files.readAllLines(Sim.dir().resolve("layout-" + abi.label() + ".txt"))) {
            String[] parts = line.trim().split(" ");
            table.put(parts[0], Long.parseLong(parts[1]));
        }
        return table;
    }

    @ParameterizedTest
    @EnumSource(Abi.class)
    void everyCOffsetAndSizeMatchesTheJavaLayout(Abi abi) throws IOException {
        Map<String, Long> table = table(abi);
        Map<String, GroupLayout> layouts = AbiLayouts.of(abi).all();
        assertThat(table).isNotEmpty();
        for (var entry : table.entrySet()) {
            String struct = entry.getKey().substring(0, entry.getKey().indexOf('.'));
            String field = entry.getKey().substring(struct.length() + 1);
            assertThat(layouts).as("Java layout for %s", struct).containsKey(struct);
            GroupLayout layout = layouts.get(struct);
            long actual = field.equals("sizeof") ? layout.byteSize() : Structs.offset(layout, field);
            assertThat(actual).as("%s %s in ABI %s", struct, field, abi).isEqualTo(entry.getValue());
        }
    }

    @ParameterizedTest
    @EnumSource(Abi.class)
    void theJavaLayoutsHaveNoFieldTheCHeaderLacks(Abi abi) throws IOException {
        Map<String, Long> table = table(abi);
        for (var layout : AbiLayouts.of(abi).all().values()) {
            String struct = layout.name().orElseThrow();
            assertThat(table).containsKey(struct + ".sizeof");
            for (String field : fieldNames(layout)) {
                assertThat(table).as("C table entry for %s.%s (ABI %s)", struct, field, abi)
                        .containsKey(struct + "." + field);
            }
        }
    }

    @ParameterizedTest
    @EnumSource(Abi.class)
    void headlineSizesAreTheDocumentedOnes(Abi abi) {
        AbiLayouts l = AbiLayouts.of(abi);
        boolean v12 = abi == Abi.V1_2;
        assertThat(l.param().byteSize()).isEqualTo(v12 ? 208 : 184);
        assertThat(l.input().byteSize()).isEqualTo(v12 ? 64 : 160);
        assertThat(l.inferParam().byteSize()).isEqualTo(v12 ? 32 : 40);
        assertThat(l.multiModalInput().byteSize()).isEqualTo(v12 ? 48 : 144);
        assertThat(Structs.offset(l.param(), "extend_param")).isEqualTo(v12 ? 88 : 60);
        assertThat(Structs.offset(l.inferParam(), "keep_history")).isEqualTo(v12 ? 24 : 32);
        assertThat(AbiLayouts.RESULT.byteSize()).isEqualTo(72);
        assertThat(Structs.offset(AbiLayouts.RESULT, "perf")).isEqualTo(48);
        assertThat(Structs.offset(AbiLayouts.RESULT, "last_hidden_layer.hidden_states")).isEqualTo(16);
        assertThat(Structs.offset(AbiLayouts.RESULT, "last_hidden_layer.embd_size")).isEqualTo(24);
        assertThat(Structs.offset(AbiLayouts.RESULT, "last_hidden_layer.num_tokens")).isEqualTo(28);
        assertThat(AbiLayouts.EXTEND_PARAM.byteSize()).isEqualTo(120);
        assertThat(l.callback().map(MemoryLayout::byteSize)).isEqualTo(v12 ? java.util.Optional.empty()
                : java.util.Optional.of(48L));
    }

    /** Where the image fields sit in RKLLMInput (AArch64 offsets of the real headers, research doc A.6). */
    @ParameterizedTest
    @EnumSource(Abi.class)
    void imageFieldsSitWhereTheRealHeadersPutThem(Abi abi) {
        AbiLayouts l = AbiLayouts.of(abi);
        long base = Structs.offset(l.input(), "multimodal_input");
        GroupLayout m = l.multiModalInput();
        assertThat(base + Structs.offset(m, "prompt")).isEqualTo(16);
        if (abi == Abi.V1_2) {
            assertThat(base + Structs.offset(m, "image_embed")).isEqualTo(24);
            assertThat(base + Structs.offset(m, "n_image_tokens")).isEqualTo(32);
            assertThat(base + Structs.offset(m, "n_image")).isEqualTo(40);
            assertThat(base + Structs.offset(m, "image_width")).isEqualTo(48);
            assertThat(base + Structs.offset(m, "image_height")).isEqualTo(56);
            assertThat(Structs.offset(l.param(), "img_start")).isEqualTo(64);
            assertThat(Structs.offset(l.param(), "img_end")).isEqualTo(72);
            assertThat(Structs.offset(l.param(), "img_content")).isEqualTo(80);
        } else {
            long image = base + Structs.offset(m, "image");
            GroupLayout i = l.all().get("RKLLMImageInput");
            assertThat(image + Structs.offset(i, "image_embed")).isEqualTo(24);
            assertThat(image + Structs.offset(i, "n_image_tokens")).isEqualTo(32);
            assertThat(image + Structs.offset(i, "n_image")).isEqualTo(40);
            assertThat(image + Structs.offset(i, "image_start")).isEqualTo(48);
            assertThat(image + Structs.offset(i, "image_end")).isEqualTo(56);
            assertThat(image + Structs.offset(i, "image_content")).isEqualTo(64);
            assertThat(image + Structs.offset(i, "image_width")).isEqualTo(72);
            assertThat(image + Structs.offset(i, "image_height")).isEqualTo(80);
            assertThat(base + Structs.offset(m, "video")).isEqualTo(88);
            assertThat(Structs.find(l.param(), "img_start")).isEmpty();
        }
    }

    private static java.util.List<String> fieldNames(GroupLayout layout) {
        java.util.List<String> names = new java.util.ArrayList<>();
        for (MemoryLayout member : layout.memberLayouts()) {
            if (member instanceof PaddingLayout) {
                continue;
            }
            if (member instanceof UnionLayout union && union.name().isEmpty()) {
                names.addAll(fieldNames(union));
            } else {
                names.add(member.name().orElseThrow());
            }
        }
        return names;
    }
}
