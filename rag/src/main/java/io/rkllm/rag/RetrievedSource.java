package io.rkllm.rag;

/**
 * One {@code <source>} block of the retrieved context.
 *
 * @param id   the citation id Open WebUI gave it ("1", "2"...), or "" when the template gave none
 * @param name the {@code name} attribute (a URL for web results, a file name for documents), or ""
 * @param text the block's text as received
 * @param web  whether the text is an extracted web page (cleaned) rather than a document chunk
 */
public record RetrievedSource(String id, String name, String text, boolean web) {
    public RetrievedSource {
        id = id == null ? "" : id.strip();
        name = name == null ? "" : name.strip();
        text = text == null ? "" : text;
    }
}
