package io.rkllm.ffm;

/** The functions of the RKLLM C API; the optional ones are reported as unsupported when missing. */
public enum RkllmFunction implements NativeFunction {
    CREATE_DEFAULT_PARAM("rkllm_createDefaultParam", true),
    INIT("rkllm_init", true),
    RUN("rkllm_run", true),
    ABORT("rkllm_abort", true),
    DESTROY("rkllm_destroy", true),
    IS_RUNNING("rkllm_is_running", false),
    CLEAR_KV_CACHE("rkllm_clear_kv_cache", false),
    GET_KV_CACHE_SIZE("rkllm_get_kv_cache_size", false),
    SET_CHAT_TEMPLATE("rkllm_set_chat_template", false),
    SET_FUNCTION_TOOLS("rkllm_set_function_tools", false),
    LOAD_PROMPT_CACHE("rkllm_load_prompt_cache", false),
    RELEASE_PROMPT_CACHE("rkllm_release_prompt_cache", false),
    LOAD_LORA("rkllm_load_lora", false);

    private final String symbol;
    private final boolean required;

    RkllmFunction(String symbol, boolean required) {
        this.symbol = symbol;
        this.required = required;
    }

    @Override
    public String symbol() {
        return symbol;
    }

    /** Without a required function the library cannot serve at all. */
    @Override
    public boolean required() {
        return required;
    }
}
