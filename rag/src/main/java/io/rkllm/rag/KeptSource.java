package io.rkllm.rag;

import java.util.List;

/**
 * A source that made it into the prompt.
 *
 * @param id       the citation id the model is told to use ({@code [id]}), as Open WebUI numbered it
 * @param name     the source's name (URL or file name)
 * @param web      whether it was a web page (and was cleaned)
 * @param passages the passages kept, in their original order
 * @param tokens   tokens these passages cost in the prompt, markers included
 */
public record KeptSource(String id, String name, boolean web, List<String> passages, int tokens) {
    public KeptSource {
        passages = List.copyOf(passages);
    }
}
