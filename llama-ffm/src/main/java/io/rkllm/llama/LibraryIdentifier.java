package io.rkllm.llama;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BOOLEAN;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.GroupLayout;
import java.lang.foreign.Linker;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SegmentAllocator;
import java.lang.foreign.SymbolLookup;
import java.lang.invoke.MethodHandle;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;

/**
 * Finds which {@link KvApi} and {@link LayoutGeneration} a library has. The KV generation is read from its
 * exports. The layout generation is proposed from its exports (and build number, where exported) and accepted
 * only when the library's own default parameters, received in an oversized buffer so that any size is safe,
 * fill exactly that generation's struct sizes and hold llama.cpp's defaults at that generation's offsets.
 * Passing a struct of the wrong layout by value to libllama corrupts memory; a library no generation fits is
 * refused.
 */
final class LibraryIdentifier {
    /** Larger than any llama_*_params struct; struct returns of this size go through memory on x86_64 and AArch64. */
    private static final long PROBE_BYTES = 1024;
    private static final GroupLayout PROBE = MemoryLayout.structLayout(
            MemoryLayout.sequenceLayout(PROBE_BYTES, JAVA_BYTE));

    private final SymbolLookup lookup;

    LibraryIdentifier(SymbolLookup lookup) {
        this.lookup = lookup;
    }

    LibraryIdentity identify(Optional<LayoutGeneration> forced, Optional<KvApi> forcedKv) {
        KvApi kv = forcedKv.isPresent() ? exported(forcedKv.get()) : kvApi();
        OptionalInt build = buildNumber();
        Optional<String> commit = commit();
        List<LayoutGeneration> candidates = forced.map(List::of).orElseGet(() -> candidates(kv, build));
        List<String> refusals = new ArrayList<>();
        for (LayoutGeneration generation : candidates) {
            Optional<String> mismatch = probe(LlamaLayouts.of(generation));
            if (mismatch.isEmpty()) {
                String evidence = (forced.isPresent() ? "forced " : "") + generation + " (llama.h of " + generation.builds()
                        + "): " + (build.isPresent() ? "build " + build.getAsInt() + ", " : "") + kv + " calls, "
                        + "default parameters at that generation's offsets and sizes";
                return new LibraryIdentity(generation, kv, build, commit, evidence);
            }
            refusals.add(generation + ": " + mismatch.get());
        }
        throw new LlamaException("this libllama is not a llama.cpp build whose structs the binding knows ("
                + (build.isPresent() ? "build " + build.getAsInt() + ", " : "") + kv + " calls; "
                + (refusals.isEmpty() ? "no layout generation matches its exports" : String.join("; ", refusals))
                + "). Supported: " + supported() + ". Point the llama engine at a supported build, or leave the "
                + "library unset to use the bundled one");
    }

    private static String supported() {
        List<String> names = new ArrayList<>();
        for (LayoutGeneration g : LayoutGeneration.values()) {
            names.add(g.builds());
        }
        return String.join(", ", names);
    }

    /** A KV generation asked for by name, if the library has it (older builds keep the previous names a while). */
    private KvApi exported(KvApi kv) {
        String probe = kv == KvApi.MEMORY ? "llama_memory_seq_rm" : kv.prefix() + "seq_rm";
        if (!has(probe)) {
            throw new LlamaException("the " + kv + " calls were asked for but the library does not export " + probe);
        }
        return kv;
    }

    KvApi kvApi() {
        if (has("llama_get_memory") && has("llama_memory_seq_rm")) {
            return KvApi.MEMORY;
        }
        if (has("llama_kv_self_seq_rm")) {
            return KvApi.KV_SELF;
        }
        if (has("llama_kv_cache_seq_rm")) {
            return KvApi.KV_CACHE;
        }
        throw new LlamaException("the library exports none of llama_memory_seq_rm, llama_kv_self_seq_rm and "
                + "llama_kv_cache_seq_rm: not a llama.cpp library with the C API exported");
    }

    private List<LayoutGeneration> candidates(KvApi kv, OptionalInt build) {
        List<LayoutGeneration> candidates = new ArrayList<>();
        if (kv == KvApi.MEMORY) {
            if (has("llama_batch_ext_init")) {
                candidates.add(LayoutGeneration.V0_7_0);
            } else if (has("llama_load_mode_name")) {
                candidates.add(LayoutGeneration.V0_5_0);
            }
        } else if (!has("llama_get_memory") && (build.isEmpty() || (build.getAsInt() >= 4753 && build.getAsInt() <= 4980))) {
            candidates.add(LayoutGeneration.B4916);
        }
        return candidates;
    }

    private boolean has(String symbol) {
        return lookup.find(symbol).isPresent();
    }

    private OptionalInt buildNumber() {
        return lookup.find("LLAMA_BUILD_NUMBER")
                .map(address -> OptionalInt.of(address.reinterpret(4).get(JAVA_INT, 0)))
                .orElse(OptionalInt.empty());
    }

    private Optional<String> commit() {
        return lookup.find("LLAMA_COMMIT").map(address -> {
            MemorySegment text = address.reinterpret(ADDRESS.byteSize()).get(ADDRESS, 0);
            return text.equals(MemorySegment.NULL) ? "" : text.reinterpret(64).getString(0);
        }).filter(s -> !s.isEmpty());
    }

    /** Empty when the library's defaults fit {@code layouts}; else what did not. */
    Optional<String> probe(LlamaLayouts layouts) {
        Optional<String> model = probeStruct("llama_model_default_params", layouts.modelParams(), (s, l) -> {
            List<String> wrong = new ArrayList<>();
            expect(wrong, s.get(ADDRESS, Structs.offset(l, "devices")).address() == 0, "devices");
            expect(wrong, s.get(JAVA_INT, Structs.offset(l, "split_mode")) == 1, "split_mode");
            expect(wrong, !s.get(JAVA_BOOLEAN, Structs.offset(l, "vocab_only")), "vocab_only");
            expect(wrong, s.get(ADDRESS, Structs.offset(l, "kv_overrides")).address() == 0, "kv_overrides");
            if (Structs.has(l, "use_mmap")) {
                expect(wrong, s.get(JAVA_BOOLEAN, Structs.offset(l, "use_mmap")), "use_mmap");
            }
            return wrong;
        });
        if (model.isPresent()) {
            return model;
        }
        return probeStruct("llama_context_default_params", layouts.contextParams(), (s, l) -> {
            List<String> wrong = new ArrayList<>();
            expect(wrong, s.get(JAVA_INT, Structs.offset(l, "n_ctx")) == 512, "n_ctx");
            expect(wrong, s.get(JAVA_INT, Structs.offset(l, "n_batch")) == 2048, "n_batch");
            expect(wrong, s.get(JAVA_INT, Structs.offset(l, "n_ubatch")) == 512, "n_ubatch");
            expect(wrong, s.get(JAVA_INT, Structs.offset(l, "n_seq_max")) == 1, "n_seq_max");
            expect(wrong, s.get(JAVA_INT, Structs.offset(l, "type_k")) == 1, "type_k");
            expect(wrong, s.get(JAVA_INT, Structs.offset(l, "type_v")) == 1, "type_v");
            expect(wrong, s.get(JAVA_BOOLEAN, Structs.offset(l, "offload_kqv")), "offload_kqv");
            expect(wrong, s.get(ADDRESS, Structs.offset(l, "abort_callback")).address() == 0, "abort_callback");
            return wrong;
        });
    }

    private interface Check {
        List<String> wrong(MemorySegment defaults, GroupLayout layout);
    }

    private static void expect(List<String> wrong, boolean ok, String field) {
        if (!ok) {
            wrong.add(field);
        }
    }

    private Optional<String> probeStruct(String symbol, GroupLayout layout, Check check) {
        MemorySegment address = lookup.find(symbol).orElse(null);
        if (address == null) {
            return Optional.of("no " + symbol);
        }
        MethodHandle handle = Linker.nativeLinker().downcallHandle(address, FunctionDescriptor.of(PROBE));
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment first = call(handle, arena, (byte) 0xA5);
            MemorySegment second = call(handle, arena, (byte) 0x5A);
            long written = 0;
            for (long i = 0; i < PROBE_BYTES; i++) {
                if (first.get(JAVA_BYTE, i) == second.get(JAVA_BYTE, i)) {
                    written = i + 1;
                }
            }
            long size = (written + layout.byteAlignment() - 1) / layout.byteAlignment() * layout.byteAlignment();
            if (size != layout.byteSize()) {
                return Optional.of(layout.name().orElseThrow() + " is " + size + " bytes, not " + layout.byteSize());
            }
            List<String> wrong = check.wrong(first, layout);
            return wrong.isEmpty() ? Optional.empty()
                    : Optional.of(layout.name().orElseThrow() + " defaults differ at " + String.join(", ", wrong));
        }
    }

    private static MemorySegment call(MethodHandle handle, Arena arena, byte fill) {
        MemorySegment buffer = arena.allocate(PROBE_BYTES, 16).fill(fill);
        SegmentAllocator into = (size, align) -> buffer.asSlice(0, size);
        try {
            return (MemorySegment) handle.invokeExact(into);
        } catch (Throwable t) {
            throw new LlamaException("probing the library's default parameters failed: " + t, t);
        }
    }
}
