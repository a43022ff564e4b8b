package io.rkllm.ffm;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BOOLEAN;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_FLOAT;
import static java.lang.foreign.ValueLayout.JAVA_INT;

import java.lang.foreign.GroupLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SegmentAllocator;
import java.nio.file.Path;
import java.util.Optional;

/** Reads and writes RKLLMParam, RKLLMExtendParam and RKLLMSamplingParam of one ABI. */
final class ParamCodec {
    private final AbiLayouts layouts;

    ParamCodec(AbiLayouts layouts) {
        this.layouts = layouts;
    }

    ModelParams read(MemorySegment param) {
        GroupLayout p = layouts.param();
        SamplingParams sampling = new SamplingParams(
                param.get(JAVA_INT, Structs.offset(p, "top_k")),
                param.get(JAVA_FLOAT, Structs.offset(p, "top_p")),
                param.get(JAVA_FLOAT, Structs.offset(p, "temperature")),
                param.get(JAVA_FLOAT, Structs.offset(p, "repeat_penalty")),
                param.get(JAVA_FLOAT, Structs.offset(p, "frequency_penalty")),
                param.get(JAVA_FLOAT, Structs.offset(p, "presence_penalty")),
                param.get(JAVA_INT, Structs.offset(p, "mirostat")),
                param.get(JAVA_FLOAT, Structs.offset(p, "mirostat_tau")),
                param.get(JAVA_FLOAT, Structs.offset(p, "mirostat_eta")));
        GroupLayout x = AbiLayouts.EXTEND_PARAM;
        MemorySegment e = param.asSlice(Structs.offset(p, "extend_param"), x.byteSize());
        ExtendParams extend = new ExtendParams(
                e.get(JAVA_INT, Structs.offset(x, "base_domain_id")),
                e.get(JAVA_BYTE, Structs.offset(x, "embed_flash")) != 0,
                e.get(JAVA_BYTE, Structs.offset(x, "enabled_cpus_num")),
                e.get(JAVA_INT, Structs.offset(x, "enabled_cpus_mask")),
                Byte.toUnsignedInt(e.get(JAVA_BYTE, Structs.offset(x, "n_batch"))),
                e.get(JAVA_BYTE, Structs.offset(x, "use_cross_attn")) != 0);
        boolean ignoreEos = Structs.find(p, "ignore_eos_token").isPresent()
                && param.get(JAVA_BOOLEAN, Structs.offset(p, "ignore_eos_token"));
        return new ModelParams(Path.of(""),
                param.get(JAVA_INT, Structs.offset(p, "max_context_len")),
                param.get(JAVA_INT, Structs.offset(p, "max_new_tokens")),
                param.get(JAVA_INT, Structs.offset(p, "n_keep")),
                sampling,
                param.get(JAVA_BOOLEAN, Structs.offset(p, "skip_special_token")),
                ignoreEos,
                extend,
                imageTags(param));
    }

    /** ABI 1.2's init-time image tags, when the library set all three. */
    private Optional<ImageTags> imageTags(MemorySegment param) {
        GroupLayout p = layouts.param();
        if (Structs.find(p, "img_start").isEmpty()) {
            return Optional.empty();
        }
        MemorySegment start = param.get(ADDRESS, Structs.offset(p, "img_start"));
        MemorySegment end = param.get(ADDRESS, Structs.offset(p, "img_end"));
        MemorySegment content = param.get(ADDRESS, Structs.offset(p, "img_content"));
        if (start.equals(MemorySegment.NULL) || end.equals(MemorySegment.NULL) || content.equals(MemorySegment.NULL)) {
            return Optional.empty();
        }
        return Optional.of(new ImageTags(string(start), string(end), string(content)));
    }

    private static String string(MemorySegment pointer) {
        return pointer.reinterpret(Long.MAX_VALUE).getString(0);
    }

    /**
     * ABI 1.2: the image tags into {@code RKLLMParam.img_*}, the strings allocated with {@code strings}
     * (which must outlive the handle: the runtime may keep the pointers). ABI 1.3 has no such fields.
     */
    void writeImageTags(MemorySegment param, Optional<ImageTags> tags, SegmentAllocator strings) {
        GroupLayout p = layouts.param();
        if (tags.isEmpty() || Structs.find(p, "img_start").isEmpty()) {
            return;
        }
        param.set(ADDRESS, Structs.offset(p, "img_start"), strings.allocateFrom(tags.get().start()));
        param.set(ADDRESS, Structs.offset(p, "img_end"), strings.allocateFrom(tags.get().end()));
        param.set(ADDRESS, Structs.offset(p, "img_content"), strings.allocateFrom(tags.get().content()));
    }

    /** Overwrites the fields ModelParams knows but the image tags; leaves the rest (reserved) as the library set them. */
    void write(MemorySegment param, ModelParams values, MemorySegment modelPath) {
        GroupLayout p = layouts.param();
        param.set(ADDRESS, Structs.offset(p, "model_path"), modelPath);
        param.set(JAVA_INT, Structs.offset(p, "max_context_len"), values.maxContextLen());
        param.set(JAVA_INT, Structs.offset(p, "max_new_tokens"), values.maxNewTokens());
        param.set(JAVA_INT, Structs.offset(p, "n_keep"), values.nKeep());
        SamplingParams s = values.sampling();
        param.set(JAVA_INT, Structs.offset(p, "top_k"), s.topK());
        param.set(JAVA_FLOAT, Structs.offset(p, "top_p"), s.topP());
        param.set(JAVA_FLOAT, Structs.offset(p, "temperature"), s.temperature());
        param.set(JAVA_FLOAT, Structs.offset(p, "repeat_penalty"), s.repeatPenalty());
        param.set(JAVA_FLOAT, Structs.offset(p, "frequency_penalty"), s.frequencyPenalty());
        param.set(JAVA_FLOAT, Structs.offset(p, "presence_penalty"), s.presencePenalty());
        param.set(JAVA_INT, Structs.offset(p, "mirostat"), s.mirostat());
        param.set(JAVA_FLOAT, Structs.offset(p, "mirostat_tau"), s.mirostatTau());
        param.set(JAVA_FLOAT, Structs.offset(p, "mirostat_eta"), s.mirostatEta());
        param.set(JAVA_BOOLEAN, Structs.offset(p, "skip_special_token"), values.skipSpecialToken());
        if (Structs.find(p, "ignore_eos_token").isPresent()) {
            param.set(JAVA_BOOLEAN, Structs.offset(p, "ignore_eos_token"), values.ignoreEosToken());
        }
        // The blocking rkllm_run is the only mode used: rkllm_run_async is unreliable in the field.
        param.set(JAVA_BOOLEAN, Structs.offset(p, "is_async"), false);
        GroupLayout x = AbiLayouts.EXTEND_PARAM;
        MemorySegment e = param.asSlice(Structs.offset(p, "extend_param"), x.byteSize());
        ExtendParams ext = values.extend();
        e.set(JAVA_INT, Structs.offset(x, "base_domain_id"), ext.baseDomainId());
        e.set(JAVA_BYTE, Structs.offset(x, "embed_flash"), (byte) (ext.embedFlash() ? 1 : 0));
        e.set(JAVA_BYTE, Structs.offset(x, "enabled_cpus_num"), (byte) ext.enabledCpusNum());
        e.set(JAVA_INT, Structs.offset(x, "enabled_cpus_mask"), ext.enabledCpusMask());
        e.set(JAVA_BYTE, Structs.offset(x, "n_batch"), (byte) Math.max(1, ext.nBatch()));
        e.set(JAVA_BYTE, Structs.offset(x, "use_cross_attn"), (byte) (ext.useCrossAttn() ? 1 : 0));
    }

    /** A filled RKLLMSamplingParam (ABI 1.3). */
    MemorySegment sampling(SegmentAllocator allocator, SamplingParams s) {
        GroupLayout l = layouts.samplingParam().orElseThrow(
                () -> new UnsupportedOperationException("ABI " + layouts.abi() + " has no per-run sampling"));
        MemorySegment seg = allocator.allocate(l);
        seg.set(JAVA_INT, Structs.offset(l, "top_k"), s.topK());
        seg.set(JAVA_FLOAT, Structs.offset(l, "top_p"), s.topP());
        seg.set(JAVA_FLOAT, Structs.offset(l, "temperature"), s.temperature());
        seg.set(JAVA_FLOAT, Structs.offset(l, "repeat_penalty"), s.repeatPenalty());
        seg.set(JAVA_FLOAT, Structs.offset(l, "frequency_penalty"), s.frequencyPenalty());
        seg.set(JAVA_FLOAT, Structs.offset(l, "presence_penalty"), s.presencePenalty());
        seg.set(JAVA_INT, Structs.offset(l, "mirostat"), s.mirostat());
        seg.set(JAVA_FLOAT, Structs.offset(l, "mirostat_tau"), s.mirostatTau());
        seg.set(JAVA_FLOAT, Structs.offset(l, "mirostat_eta"), s.mirostatEta());
        return seg;
    }
}
