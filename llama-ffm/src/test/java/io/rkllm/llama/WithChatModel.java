package io.rkllm.llama;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/** The tiny chat model, loaded once for a test class through the real library and closed after it. */
abstract class WithChatModel {
    static LlamaModel model;

    @BeforeAll
    static void loadChatModel() {
        model = TestLlama.runtime().load(ModelParams.of(TestLlama.chatModel()));
    }

    @AfterAll
    static void closeChatModel() {
        model.close();
    }
}
