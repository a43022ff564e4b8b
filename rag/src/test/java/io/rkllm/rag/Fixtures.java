package io.rkllm.rag;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;

/** Test fixtures under src/test/resources/fixtures. */
final class Fixtures {
    private Fixtures() {
    }

    static String read(String name) {
        try (InputStream in = Fixtures.class.getResourceAsStream("/fixtures/" + name)) {
            if (in == null) {
                throw new IllegalArgumentException("no fixture " + name);
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Open WebUI's default RAG template filled with a context and a query. */
    static String defaultTemplate(String context, String query) {
        return read("owui-default-template.txt").replace("{{CONTEXT}}", context).replace("{{QUERY}}", query);
    }

    static String source(String id, String name, String text) {
        return "<source id=\"" + id + "\" name=\"" + name + "\">" + text + "</source>\n";
    }
}
