package io.rkllm.server;

import io.rkllm.server.config.CommandLine;
import io.rkllm.server.config.ConfigLoader;
import io.rkllm.server.tools.ToolCommands;
import java.util.Map;

/**
 * The --help text: the server's commands, the tools jar's (their own lines, or where they are), every configuration
 * key with its default, flag and environment variable.
 */
final class HelpText {
    private HelpText() {
    }

    static String render(ConfigLoader loader, ToolCommands tools) {
        StringBuilder s = new StringBuilder();
        s.append("""
                rkllm-server: an OpenAI-compatible server for LLMs on Rockchip RK3588/RK3576 NPUs

                Usage (rkllm-server: the installed launcher; ./rkllm-server in a checkout; or java -jar rkllm-server.jar):
                  rkllm-server [serve] [options]      run the server (the default command)
                  rkllm-server models [options]       list the models found and how they will be served
                  rkllm-server pull MODEL [--models DIR] [--insecure]
                                                      download a model into the models directory: a name of
                                                      Ollama's library, MODEL[:TAG] (qwen3:4b), from its registry
                                                      (RKLLM_REGISTRY: another; --insecure: plain http); or from
                                                      the Hugging Face Hub, OWNER/REPO[:QUANT] (Q4_K_M when none is
                                                      named), OWNER/REPO/FILE or hf.co/OWNER/REPO[:QUANT]: .gguf,
                                                      or the .rkllm file for this board; resumes, checks sha256;
                                                      HF_ENDPOINT (a mirror), HF_TOKEN (gated repositories)
                  rkllm-server doctor [options]       check what serving needs (Java, runtime library and ABI, NPU
                                                      driver and device, models, config, port), with fixes;
                                                      --user NAME: the service user to check (default rkllm)
                  rkllm-server launch claude|codex|opencode|continue [--model ID] [--url URL] [--key KEY]
                                     [--dry-run] [-- ARGS]
                                                      start an installed coding agent against the running server
                                                      (base URL, model, telemetry off; nothing written outside a
                                                      temporary directory); prints what it set (docs/agents.md)
                """);
        s.append(tools.usage());
        s.append("""
                  rkllm-server rag-clean --in DIR --out DIR
                                                      clean DIR/<page>/source.txt web pages into OUT/<page>.txt
                  rkllm-server help                   this text

                Options:
                  --config FILE      YAML configuration (default: ./config/rkllm-server.yaml, config/ next to the jar,
                                     then /etc/rkllm-server/rkllm-server.yaml)
                  --host ADDR        listen address (server.host)
                  --port N           listen port, 0 = any free port (server.port)
                  --models DIR       models directory (models.dir)
                  --library PATH     librkllmrt.so to use (runtime.library; default: /usr/lib, /usr/local/lib,
                                     then the system loader's directories)
                  --abi auto|1.2|1.3 runtime ABI (runtime.abi): 1.2 = runtime 1.2.1-1.2.3, 1.3 = runtime 1.3.0
                  --llama-library PATH
                                     libllama.so for .gguf models (engines.llama.library; default: a user-built one
                                     in /usr/local/lib, Debian's libllama0, LD_LIBRARY_PATH, else the build in the
                                     jar); engines.llama.threads (0 = the big cores), .parallel (conversations at
                                     once), .context (0 = the model's own, capped by memory): docs/llama-engine.md
                  --api-key KEY      require this API key (security.api_keys; repeatable; or RKLLM_API_KEYS=K1,K2)
                  --simulate         use the bundled simulated runtime and simulated models (no NPU needed;
                                     answers are simulated), whatever models.dir the file or environment
                                     sets (its .gguf models are served by llama.cpp beside them); with
                                     --models DIR too, DIR's models on the simulated runtime
                  --help, --version

                Every configuration key can also be given as --section.key=value or as the environment
                variable RKLLM_SECTION_KEY. Precedence: flags, then environment, then the file, then defaults.

                Configuration keys (default):
                """);
        for (Map.Entry<String, String> key : loader.defaults().entrySet()) {
            s.append(String.format("  %-34s %-14s %s%n", key.getKey(), key.getValue().isEmpty() ? "\"\"" : key.getValue(),
                    ConfigLoader.envName(key.getKey())));
        }
        s.append("\nShort flags: ");
        // sorted: Map.of's order changes from run to run
        new java.util.TreeMap<>(CommandLine.SHORTCUTS).forEach((flag, key) -> s.append("--").append(flag).append("=")
                .append(key).append("  "));
        s.append("\n\nDocumentation: README.md and docs/ in the source repository.\n");
        return s.toString();
    }
}
