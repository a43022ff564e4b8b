package io.rkllm.server.backend.rkllm;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * How a request's thinking reaches the runtime: through the chat template the server sets (Qwen3's empty
 * {@code <think></think>} block switches it off, its absence lets the model think), through the runtime's
 * {@code enable_thinking} flag, or both.
 *
 * <p>Runtime 1.3.0 is reported to end a run with {@code enable_thinking=1} at {@code </think>}, swallowing the
 * tag and the whole answer after it (docs/runtime-abi.md, "Known faults"). Its documents say the flag has no
 * effect once a template is set, which is what the server does for every family it knows, so on 1.3 the flag
 * is left off for those models ({@code runtime.thinking_flag: auto}) and the output's {@code <think>} block is
 * parsed as always: the model thinks exactly as its template asks, and the runtime's thinking path is never
 * entered. A model the server has no template for can only think through the flag; it keeps it, and a broken
 * answer is caught when it ends (the pipeline's {@code IncompleteAnswer}).
 */
public final class ThinkingControl {
    private static final Logger LOG = LoggerFactory.getLogger(ThinkingControl.class);

    private final String setting;
    private final boolean abi13;
    private final Set<String> warned = ConcurrentHashMap.newKeySet();

    /**
     * @param setting {@code runtime.thinking_flag}: auto, always or never
     * @param abi the runtime's ABI label
     */
    public ThinkingControl(String setting, String abi) {
        this.setting = setting;
        this.abi13 = abi.equals("1.3");
    }

    /**
     * The {@code enable_thinking} value of a request that thinks ({@code thinking}) or not.
     *
     * @param hasTemplate the server sets a chat template for the model (its family's, or its model.yaml's)
     */
    boolean runtimeFlag(String model, String family, boolean hasTemplate, boolean thinking) {
        if (!thinking) {
            return false;
        }
        return switch (setting) {
            case "always" -> true;
            case "never" -> false;
            default -> {
                if (!abi13) {
                    yield true;
                }
                if (!hasTemplate && warned.add(model)) {
                    LOG.warn("model {} thinks through runtime 1.3.0's enable_thinking flag: the server knows no chat"
                            + " template for its family ({}), and 1.3.0 is reported to end such answers at </think>"
                            + " with nothing after it. Set chat_template in its model.yaml so that the server can"
                            + " switch thinking through the template, or use runtime 1.2.3 (docs/runtime-abi.md)",
                            model, family);
                }
                yield !hasTemplate;
            }
        };
    }
}
