package io.rkllm.server;

import io.rkllm.server.config.CommandLine;
import io.rkllm.server.config.ConfigLoader;
import java.util.Map;

/** The --help text, with every configuration key, its default, flag and environment variable. */
final class HelpText {
    private HelpText() {
    }

    static String render(ConfigLoader loader) {
        StringBuilder s = new StringBuilder();
        s.append("""
                rkllm-server: an OpenAI-compatible server for LLMs on Rockchip RK3588/RK3576 NPUs

                Usage:
                  java -jar rkllm-server.jar [serve] [options]   run the server (the default command)
                  java -jar rkllm-server.jar models [options]    list the models found and how they will be served
                  java -jar rkllm-server.jar doctor [options]    check what serving needs (Java, runtime library and ABI,
                                                                 NPU driver and device, models, config, port), with fixes;
                                                                 --user NAME: the service user to check (default rkllm)
                  java -jar rkllm-server.jar fuzz [--url URL] [--cases N] [--seed S]
                                                                 send malformed and mutated requests, check every answer
                  java -jar rkllm-server.jar soak [--url URL --model ID] [--requests N] [--clients C]
                                                                 concurrent streams with disconnects, check leaks and order
                                                                 (docs/reliability.md)
                  java -jar rkllm-server.jar bench conversations|embeddings [--url URL] [--model ID]
                                                                 replay an Open WebUI session, or a document upload of
                                                                 200 chunks with a chat in the middle (docs/performance.md)
                  java -jar rkllm-server.jar cds-archive                serve once on the simulated runtime, one request of each
                                                                 kind, and exit: with the unit's JVM options the JVM writes
                                                                 its class-data-sharing archive then (the package does it)
                  java -jar rkllm-server.jar rag-clean --in DIR --out DIR
                                                                 clean DIR/<page>/source.txt web pages into OUT/<page>.txt

                Options:
                  --config FILE      YAML configuration (default: ./config/rkllm-server.yaml, config/ next to the jar,
                                     then /etc/rkllm-server/rkllm-server.yaml)
                  --host ADDR        listen address (server.host)
                  --port N           listen port, 0 = any free port (server.port)
                  --models DIR       models directory (models.dir)
                  --library PATH     librkllmrt.so to use (runtime.library; default: /usr/lib, /usr/local/lib,
                                     then the system loader's directories)
                  --abi auto|1.2|1.3 runtime ABI (runtime.abi): 1.2 = runtime 1.2.1-1.2.3, 1.3 = runtime 1.3.0
                  --api-key KEY      require this API key (security.api_keys; repeatable; or RKLLM_API_KEYS=K1,K2)
                  --simulate         use the bundled simulated runtime and simulated models (no NPU needed;
                                     answers are simulated)
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
        CommandLine.SHORTCUTS.forEach((flag, key) -> s.append("--").append(flag).append("=").append(key).append("  "));
        s.append("\n\nDocumentation: README.md and docs/ in the source repository.\n");
        return s.toString();
    }
}
