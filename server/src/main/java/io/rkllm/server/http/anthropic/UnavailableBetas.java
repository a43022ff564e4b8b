package io.rkllm.server.http.anthropic;

import io.rkllm.server.api.ApiException;
import io.rkllm.server.api.FieldReader;

/** The fields of Anthropic's betas that only Anthropic's own service can do. */
final class UnavailableBetas {
    private UnavailableBetas() {
    }

    /**
     * Fields of Anthropic's betas that change what the answer must be and that nothing here can do: refused, as
     * server tools are, rather than answered as if they were not there. {@code thread} continues a conversation
     * stored at Anthropic (the model would see only the new messages), {@code compaction} asks for a summary block
     * instead of an answer, {@code mcp_servers} offers tools from servers Anthropic would call.
     */
    static void refuse(FieldReader f) {
        if (f.raw("thread").isPresent()) {
            throw ApiException.invalid("thread", "'thread' is not supported: no conversation is stored here; send the"
                    + " whole conversation in 'messages' (the KV cache keeps it)");
        }
        if (f.raw("compaction").isPresent()) {
            throw ApiException.invalid("compaction", "'compaction' is not supported: the server writes no summary"
                    + " blocks (it leaves out the oldest exchanges when the conversation outgrows the context)");
        }
        if (f.array("mcp_servers").map(a -> !a.isEmpty()).orElse(false)) {
            throw ApiException.invalid("mcp_servers", "'mcp_servers' is not supported: the server calls no MCP"
                    + " servers; give their tools as client tools in 'tools' (an agent's own MCP client does)");
        }
    }
}
