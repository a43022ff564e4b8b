package io.rkllm.llama;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.lang.foreign.GroupLayout;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.PaddingLayout;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Every field offset and struct size of the Java layouts equals what the C compiler computed from the llama.h
 * of that generation (the checked-in tables written by src/layout/layout_table.c), and the Java layouts have no
 * field the table lacks.
 */
class LayoutTableTest {

    private static Map<String, Long> table(LayoutGeneration generation) throws IOException {
        Map<String, Long> table = new LinkedHashMap<>();
        var stream = LayoutTableTest.class.getResourceAsStream("layout-" + generation.name() + ".txt");
        assertThat(stream).as("layout table of %s", generation).isNotNull();
        try (var reader = new BufferedReader(new InputStreamReader(stream, StandardCharsets.UTF_8))) {
            reader.lines().filter(l -> !l.isBlank()).forEach(line -> {
                String[] parts = line.trim().split(" ");
                table.put(parts[0], Long.parseLong(parts[1]));
            });
        }
        return table;
    }

    @ParameterizedTest
    @EnumSource(LayoutGeneration.class)
    void everyCOffsetAndSizeMatchesTheJavaLayout(LayoutGeneration generation) throws IOException {
        Map<String, Long> table = table(generation);
        Map<String, GroupLayout> layouts = LlamaLayouts.of(generation).all();
        assertThat(table).hasSizeGreaterThan(40);
        for (var entry : table.entrySet()) {
            String struct = entry.getKey().substring(0, entry.getKey().indexOf('.'));
            String field = entry.getKey().substring(struct.length() + 1);
            assertThat(layouts).as("Java layout for %s", struct).containsKey(struct);
            GroupLayout layout = layouts.get(struct);
            long actual = field.equals("sizeof") ? layout.byteSize() : Structs.offset(layout, field);
            assertThat(actual).as("%s %s in %s", struct, field, generation).isEqualTo(entry.getValue());
        }
    }

    @ParameterizedTest
    @EnumSource(LayoutGeneration.class)
    void theJavaLayoutsHaveNoFieldTheCHeaderLacks(LayoutGeneration generation) throws IOException {
        Map<String, Long> table = table(generation);
        for (GroupLayout layout : LlamaLayouts.of(generation).all().values()) {
            String struct = layout.name().orElseThrow();
            assertThat(table).containsKey(struct + ".sizeof");
            for (MemoryLayout member : layout.memberLayouts()) {
                if (!(member instanceof PaddingLayout)) {
                    assertThat(table).as("C table entry for %s.%s (%s)", struct, member.name().orElseThrow(),
                            generation).containsKey(struct + "." + member.name().orElseThrow());
                }
            }
        }
    }
}
