package io.rkllm.ffm;

import java.lang.foreign.GroupLayout;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.UnionLayout;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * Field offsets by C name, looking through unnamed unions the way C's offsetof does; a dotted name
 * ({@code last_hidden_layer.hidden_states}) reaches into a nested struct, also as offsetof does.
 */
final class Structs {
    private Structs() {
    }

    static long offset(GroupLayout layout, String field) {
        return find(layout, field).orElseThrow(
                () -> new IllegalArgumentException(layout.name().orElse("struct") + " has no field " + field));
    }

    static OptionalLong find(GroupLayout layout, String field) {
        return member(layout, field).map(m -> OptionalLong.of(m.offset())).orElse(OptionalLong.empty());
    }

    private record Member(long offset, MemoryLayout layout) {
    }

    private static Optional<Member> member(GroupLayout layout, String path) {
        int dot = path.indexOf('.');
        if (dot < 0) {
            return direct(layout, path);
        }
        return direct(layout, path.substring(0, dot)).flatMap(outer -> outer.layout() instanceof GroupLayout group
                ? member(group, path.substring(dot + 1)).map(inner -> new Member(outer.offset() + inner.offset(),
                        inner.layout()))
                : Optional.empty());
    }

    private static Optional<Member> direct(GroupLayout layout, String field) {
        long base = 0;
        for (MemoryLayout member : layout.memberLayouts()) {
            long memberOffset = layout instanceof UnionLayout ? 0 : base;
            if (member.name().filter(field::equals).isPresent()) {
                return Optional.of(new Member(memberOffset, member));
            }
            if (member instanceof UnionLayout union && union.name().isEmpty()) {
                Optional<Member> inner = direct(union, field);
                if (inner.isPresent()) {
                    return Optional.of(new Member(memberOffset + inner.get().offset(), inner.get().layout()));
                }
            }
            base += member.byteSize();
        }
        return Optional.empty();
    }
}
