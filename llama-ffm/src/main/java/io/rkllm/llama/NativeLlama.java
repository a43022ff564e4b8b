package io.rkllm.llama;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BOOLEAN;
import static java.lang.foreign.ValueLayout.JAVA_FLOAT;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodType;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Downcall handles for the functions of llama.h (and the few of ggml-backend.h) the binding calls, typed for
 * one layout generation. A required function missing from the library is refused when binding; an optional
 * one is empty.
 */
final class NativeLlama {
    private final SymbolLookup lookup;
    private final LlamaLayouts layouts;
    /** Symbols found, with their descriptors; a downcall handle is made on first use (making ~80 at once costs seconds). */
    private final Map<String, Bound> bound = new ConcurrentHashMap<>();

    private record Bound(MemorySegment address, FunctionDescriptor descriptor, MethodHandle[] cached) {
        MethodHandle downcall() {
            MethodHandle h = cached[0];
            if (h == null) {
                h = Linker.nativeLinker().downcallHandle(address, descriptor);
                cached[0] = h;
            }
            return h;
        }

        /**
         * The downcall taking its arguments as an array and returning its result boxed, made once: {@code
         * invokeWithArguments} builds such an adapter on every call, which cost each native call microseconds.
         */
        MethodHandle spread() {
            MethodHandle h = cached[1];
            if (h == null) {
                MethodHandle d = downcall();
                h = d.asSpreader(Object[].class, d.type().parameterCount())
                        .asType(MethodType.methodType(Object.class, Object[].class));
                cached[1] = h;
            }
            return h;
        }
    }

    NativeLlama(SymbolLookup lookup, LlamaLayouts layouts) {
        this.lookup = lookup;
        this.layouts = layouts;
        var t = layouts;
        required("llama_backend_init", FunctionDescriptor.ofVoid());
        required("llama_model_default_params", FunctionDescriptor.of(t.modelParams()));
        required("llama_context_default_params", FunctionDescriptor.of(t.contextParams()));
        required("llama_sampler_chain_default_params", FunctionDescriptor.of(t.samplerChainParams()));
        required("llama_model_load_from_file", FunctionDescriptor.of(ADDRESS, ADDRESS, t.modelParams()));
        required("llama_model_free", FunctionDescriptor.ofVoid(ADDRESS));
        required("llama_init_from_model", FunctionDescriptor.of(ADDRESS, ADDRESS, t.contextParams()));
        required("llama_free", FunctionDescriptor.ofVoid(ADDRESS));
        required("llama_model_get_vocab", FunctionDescriptor.of(ADDRESS, ADDRESS));
        required("llama_vocab_n_tokens", FunctionDescriptor.of(JAVA_INT, ADDRESS));
        required("llama_vocab_bos", FunctionDescriptor.of(JAVA_INT, ADDRESS));
        required("llama_vocab_eos", FunctionDescriptor.of(JAVA_INT, ADDRESS));
        required("llama_vocab_eot", FunctionDescriptor.of(JAVA_INT, ADDRESS));
        optional("llama_vocab_sep", FunctionDescriptor.of(JAVA_INT, ADDRESS));
        optional("llama_vocab_fim_pre", FunctionDescriptor.of(JAVA_INT, ADDRESS));
        optional("llama_vocab_fim_suf", FunctionDescriptor.of(JAVA_INT, ADDRESS));
        optional("llama_vocab_fim_mid", FunctionDescriptor.of(JAVA_INT, ADDRESS));
        optional("llama_vocab_fim_rep", FunctionDescriptor.of(JAVA_INT, ADDRESS));
        optional("llama_vocab_fim_sep", FunctionDescriptor.of(JAVA_INT, ADDRESS));
        required("llama_vocab_is_eog", FunctionDescriptor.of(JAVA_BOOLEAN, ADDRESS, JAVA_INT));
        required("llama_vocab_is_control", FunctionDescriptor.of(JAVA_BOOLEAN, ADDRESS, JAVA_INT));
        required("llama_vocab_get_add_bos", FunctionDescriptor.of(JAVA_BOOLEAN, ADDRESS));
        required("llama_tokenize", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, JAVA_INT, ADDRESS, JAVA_INT,
                JAVA_BOOLEAN, JAVA_BOOLEAN));
        required("llama_token_to_piece", FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT, ADDRESS, JAVA_INT,
                JAVA_INT, JAVA_BOOLEAN));
        required("llama_detokenize", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, JAVA_INT, ADDRESS, JAVA_INT,
                JAVA_BOOLEAN, JAVA_BOOLEAN));
        required("llama_decode", FunctionDescriptor.of(JAVA_INT, ADDRESS, t.batch()));
        optional("llama_encode", FunctionDescriptor.of(JAVA_INT, ADDRESS, t.batch()));
        required("llama_get_logits_ith", FunctionDescriptor.of(ADDRESS, ADDRESS, JAVA_INT));
        required("llama_get_embeddings_ith", FunctionDescriptor.of(ADDRESS, ADDRESS, JAVA_INT));
        required("llama_get_embeddings_seq", FunctionDescriptor.of(ADDRESS, ADDRESS, JAVA_INT));
        required("llama_set_embeddings", FunctionDescriptor.ofVoid(ADDRESS, JAVA_BOOLEAN));
        required("llama_pooling_type", FunctionDescriptor.of(JAVA_INT, ADDRESS));
        required("llama_set_abort_callback", FunctionDescriptor.ofVoid(ADDRESS, ADDRESS, ADDRESS));
        required("llama_set_n_threads", FunctionDescriptor.ofVoid(ADDRESS, JAVA_INT, JAVA_INT));
        required("llama_n_ctx", FunctionDescriptor.of(JAVA_INT, ADDRESS));
        required("llama_n_batch", FunctionDescriptor.of(JAVA_INT, ADDRESS));
        required("llama_n_ubatch", FunctionDescriptor.of(JAVA_INT, ADDRESS));
        required("llama_n_seq_max", FunctionDescriptor.of(JAVA_INT, ADDRESS));
        required("llama_model_n_ctx_train", FunctionDescriptor.of(JAVA_INT, ADDRESS));
        required("llama_model_n_embd", FunctionDescriptor.of(JAVA_INT, ADDRESS));
        required("llama_model_n_layer", FunctionDescriptor.of(JAVA_INT, ADDRESS));
        required("llama_model_n_head", FunctionDescriptor.of(JAVA_INT, ADDRESS));
        required("llama_model_desc", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, JAVA_LONG));
        required("llama_model_size", FunctionDescriptor.of(JAVA_LONG, ADDRESS));
        required("llama_model_n_params", FunctionDescriptor.of(JAVA_LONG, ADDRESS));
        required("llama_model_has_encoder", FunctionDescriptor.of(JAVA_BOOLEAN, ADDRESS));
        required("llama_model_has_decoder", FunctionDescriptor.of(JAVA_BOOLEAN, ADDRESS));
        required("llama_model_meta_val_str", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, ADDRESS, JAVA_LONG));
        required("llama_model_meta_count", FunctionDescriptor.of(JAVA_INT, ADDRESS));
        required("llama_model_meta_key_by_index", FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT, ADDRESS,
                JAVA_LONG));
        required("llama_model_meta_val_str_by_index", FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT, ADDRESS,
                JAVA_LONG));
        required("llama_model_chat_template", FunctionDescriptor.of(ADDRESS, ADDRESS, ADDRESS));
        optional("llama_model_n_cls_out", FunctionDescriptor.of(JAVA_INT, ADDRESS));
        required("llama_sampler_chain_init", FunctionDescriptor.of(ADDRESS, t.samplerChainParams()));
        required("llama_sampler_chain_add", FunctionDescriptor.ofVoid(ADDRESS, ADDRESS));
        required("llama_sampler_init_greedy", FunctionDescriptor.of(ADDRESS));
        required("llama_sampler_init_dist", FunctionDescriptor.of(ADDRESS, JAVA_INT));
        required("llama_sampler_init_top_k", FunctionDescriptor.of(ADDRESS, JAVA_INT));
        required("llama_sampler_init_top_p", FunctionDescriptor.of(ADDRESS, JAVA_FLOAT, JAVA_LONG));
        required("llama_sampler_init_min_p", FunctionDescriptor.of(ADDRESS, JAVA_FLOAT, JAVA_LONG));
        required("llama_sampler_init_typical", FunctionDescriptor.of(ADDRESS, JAVA_FLOAT, JAVA_LONG));
        required("llama_sampler_init_temp", FunctionDescriptor.of(ADDRESS, JAVA_FLOAT));
        required("llama_sampler_init_penalties", layouts.generation().penaltiesTakeVocabSize()
                ? FunctionDescriptor.of(ADDRESS, JAVA_INT, JAVA_INT, JAVA_FLOAT, JAVA_FLOAT, JAVA_FLOAT)
                : FunctionDescriptor.of(ADDRESS, JAVA_INT, JAVA_FLOAT, JAVA_FLOAT, JAVA_FLOAT));
        required("llama_sampler_init_logit_bias", FunctionDescriptor.of(ADDRESS, JAVA_INT, JAVA_INT, ADDRESS));
        required("llama_sampler_init_grammar", FunctionDescriptor.of(ADDRESS, ADDRESS, ADDRESS, ADDRESS));
        required("llama_sampler_sample", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, JAVA_INT));
        required("llama_sampler_accept", FunctionDescriptor.ofVoid(ADDRESS, JAVA_INT));
        required("llama_sampler_apply", FunctionDescriptor.ofVoid(ADDRESS, ADDRESS));
        required("llama_sampler_reset", FunctionDescriptor.ofVoid(ADDRESS));
        required("llama_sampler_free", FunctionDescriptor.ofVoid(ADDRESS));
        required("llama_log_set", FunctionDescriptor.ofVoid(ADDRESS, ADDRESS));
        required("llama_print_system_info", FunctionDescriptor.of(ADDRESS));
        optional("llama_perf_context", FunctionDescriptor.of(t.perfContext(), ADDRESS));
        optional("llama_perf_context_reset", FunctionDescriptor.ofVoid(ADDRESS));
        optional("llama_state_seq_get_size", FunctionDescriptor.of(JAVA_LONG, ADDRESS, JAVA_INT));
        optional("llama_state_seq_get_data", FunctionDescriptor.of(JAVA_LONG, ADDRESS, ADDRESS, JAVA_LONG, JAVA_INT));
        optional("llama_state_seq_set_data", FunctionDescriptor.of(JAVA_LONG, ADDRESS, ADDRESS, JAVA_LONG, JAVA_INT));
        optional("ggml_backend_dev_count", FunctionDescriptor.of(JAVA_LONG));
        optional("ggml_backend_dev_get", FunctionDescriptor.of(ADDRESS, JAVA_LONG));
        optional("ggml_backend_dev_name", FunctionDescriptor.of(ADDRESS, ADDRESS));
        optional("ggml_backend_dev_description", FunctionDescriptor.of(ADDRESS, ADDRESS));
        optional("ggml_backend_load_all_from_path", FunctionDescriptor.ofVoid(ADDRESS));
        optional("ggml_backend_load_all", FunctionDescriptor.ofVoid());
    }

    LlamaLayouts layouts() {
        return layouts;
    }

    SymbolLookup lookup() {
        return lookup;
    }

    private void required(String symbol, FunctionDescriptor descriptor) {
        if (!bind(symbol, descriptor)) {
            throw new LlamaException("the library does not export " + symbol + ": not a llama.cpp library the "
                    + "binding supports (or one built without the C API exported)");
        }
    }

    private void optional(String symbol, FunctionDescriptor descriptor) {
        bind(symbol, descriptor);
    }

    /** Binds {@code symbol} if the library exports it; true when it does. */
    boolean bind(String symbol, FunctionDescriptor descriptor) {
        Optional<MemorySegment> address = lookup.find(symbol);
        address.ifPresent(a -> bound.put(symbol, new Bound(a, descriptor, new MethodHandle[2])));
        return address.isPresent();
    }

    boolean has(String symbol) {
        return bound.containsKey(symbol);
    }

    MethodHandle handle(String symbol) {
        Bound b = bound.get(symbol);
        if (b == null) {
            throw new LlamaException("the library does not export " + symbol);
        }
        return b.downcall();
    }

    /** Invokes {@code symbol} with {@code args}; a Throwable from the handle (never from C) becomes unchecked. */
    Object call(String symbol, Object... args) {
        Bound b = bound.get(symbol);
        if (b == null) {
            throw new LlamaException("the library does not export " + symbol);
        }
        try {
            return (Object) b.spread().invokeExact(args);
        } catch (Throwable t) {
            throw unchecked(symbol, t);
        }
    }

    /**
     * What a native call's handle threw (never C: a Throwable of the handle's own), for callers that invoke a handle
     * exactly: rethrown as it is when unchecked, else wrapped.
     */
    static RuntimeException unchecked(String symbol, Throwable t) {
        if (t instanceof Error e) {
            throw e;
        }
        return t instanceof RuntimeException r ? r : new LlamaException("calling " + symbol + " failed: " + t, t);
    }
}
