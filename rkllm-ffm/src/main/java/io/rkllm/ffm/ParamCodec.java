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
                extend);
    }

    /** Overwrites the fields ModelParams knows; leaves the rest (reserved, image tags) as the library set them. */
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
