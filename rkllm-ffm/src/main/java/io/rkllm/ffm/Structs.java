package io.rkllm.ffm;

import java.lang.foreign.GroupLayout;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.UnionLayout;
import java.util.OptionalLong;

/** Field offsets by C name, looking through unnamed unions the way C's offsetof does. */
final class Structs {
    private Structs() {
    }

    static long offset(GroupLayout layout, String field) {
        return find(layout, field).orElseThrow(
                () -> new IllegalArgumentException(layout.name().orElse("struct") + " has no field " + field));
    }

    static OptionalLong find(GroupLayout layout, String field) {
        long base = 0;
        for (MemoryLayout member : layout.memberLayouts()) {
            long memberOffset = layout instanceof UnionLayout ? 0 : base;
            if (member.name().filter(field::equals).isPresent()) {
                return OptionalLong.of(memberOffset);
            }
            if (member instanceof UnionLayout union && union.name().isEmpty()) {
                OptionalLong inner = find(union, field);
                if (inner.isPresent()) {
                    return OptionalLong.of(memberOffset + inner.getAsLong());
                }
            }
            base += member.byteSize();
        }
        return OptionalLong.empty();
    }
}
