package io.rkllm.llama;

import java.lang.foreign.GroupLayout;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemoryLayout.PathElement;
import java.util.ArrayList;
import java.util.List;

/** C struct layouts with the C compiler's padding, and field offsets by name. */
final class Structs {
    private Structs() {
    }

    /** A struct of {@code members} in order, each at its natural alignment, padded to the largest alignment. */
    static GroupLayout struct(String name, MemoryLayout... members) {
        List<MemoryLayout> laid = new ArrayList<>();
        long offset = 0;
        long maxAlign = 1;
        for (MemoryLayout member : members) {
            long align = member.byteAlignment();
            maxAlign = Math.max(maxAlign, align);
            long padding = (align - offset % align) % align;
            if (padding > 0) {
                laid.add(MemoryLayout.paddingLayout(padding));
                offset += padding;
            }
            laid.add(member);
            offset += member.byteSize();
        }
        long tail = (maxAlign - offset % maxAlign) % maxAlign;
        if (tail > 0) {
            laid.add(MemoryLayout.paddingLayout(tail));
        }
        return MemoryLayout.structLayout(laid.toArray(MemoryLayout[]::new)).withName(name);
    }

    static long offset(GroupLayout layout, String field) {
        return layout.byteOffset(PathElement.groupElement(field));
    }

    static boolean has(GroupLayout layout, String field) {
        return layout.memberLayouts().stream().anyMatch(m -> m.name().filter(field::equals).isPresent());
    }
}
