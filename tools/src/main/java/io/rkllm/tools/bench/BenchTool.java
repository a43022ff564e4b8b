package io.rkllm.tools.bench;

import io.rkllm.server.config.CommandLine;
import io.rkllm.server.tools.ToolCommand;
import io.rkllm.server.tools.ToolContext;
import java.util.Set;

/** {@code rkllm-server bench KIND ...}, as the launcher finds it: see {@link BenchCommand}. */
public final class BenchTool implements ToolCommand {
    @Override
    public String name() {
        return "bench";
    }

    @Override
    public Set<String> valueOptions() {
        return Set.of("url", "model", "gguf", "turns", "chat-model", "chunks", "chunk-chars", "layers", "width",
                "heads", "kv-heads", "ff", "type", "prompt-tokens", "tokens", "runs", "parallel-runs",
                "parallel-prompt-tokens", "json", "other", "other-model", "other-label", "label", "rounds",
                "prompt-words");
    }

    @Override
    public String usage() {
        return """
                  rkllm-server bench conversations [--url URL] [--model ID] [--gguf FILE|tiny] [options]
                                                      replay an Open WebUI session and report the KV cache's use;
                                                      without --url against a simulated server started here, with
                                                      --gguf against a GGUF model served by llama.cpp here
                  rkllm-server bench long-chat [--url URL] [--model ID] [--turns N] [--gguf FILE|tiny] [options]
                                                      replay one chat that outgrows the context: prefill, messages
                                                      left out, answers reused, time to first token
                                                      (docs/performance.md)
                  rkllm-server bench images [--url URL] [--model ID] [options]
                                                      replay a picture chat per picture cache policy: encoder runs,
                                                      prefill, time to first token (docs/performance.md)
                  rkllm-server bench embeddings [--url URL] [--model ID] [options]
                                                      upload a 200-chunk document as Open WebUI does, with a chat
                                                      in the middle: failures, overhead, the chat's first token
                  rkllm-server bench llama [--gguf FILE] [--prompt-tokens N] [--tokens N] [--runs N]
                                     [--json FILE] [options]
                                                      a GGUF model's prefill and decode through a server started
                                                      here against llama.cpp's library alone, and 1-3 chats at
                                                      once; without --gguf on a random-weight model it writes
                                                      (--layers --width --heads --kv-heads --ff --type f16|f32)
                  rkllm-server bench versus --other URL (--url URL | --gguf FILE) [--rounds N] [--tokens N]
                                     [--model ID] [--other-model ID] [--other-label NAME] [options]
                                                      one workload against this server and another OpenAI-compatible
                                                      one (a llama-server) in turns: one chat and its follow-up, a
                                                      long prompt, four chats at once, four long prompts together;
                                                      a table of medians and ratios (docs/performance.md)
                """;
    }

    @Override
    public int run(CommandLine line, ToolContext context) {
        return new BenchCommand(context.environment(), context.out(), context.err()).run(line, context.loader());
    }
}
