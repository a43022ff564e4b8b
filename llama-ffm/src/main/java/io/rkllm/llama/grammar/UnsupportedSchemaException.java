package io.rkllm.llama.grammar;

/**
 * A JSON Schema that no grammar can constrain output to: a keyword a context-free grammar cannot express
 * ({@code not}, {@code uniqueItems}, {@code multipleOf}...), a form of it outside what the converter covers (a
 * {@code pattern} with lookahead, a remote {@code $ref}), or a schema no value satisfies. The caller falls back to
 * generating freely and checking the answer.
 */
public class UnsupportedSchemaException extends IllegalArgumentException {
    private static final long serialVersionUID = 1L;

    private final String keyword;
    private final String location;

    public UnsupportedSchemaException(String keyword, String location, String reason) {
        super("JSON Schema keyword '" + keyword + "' at " + (location.isEmpty() ? "the root" : location)
                + " cannot be turned into a grammar: " + reason);
        this.keyword = keyword;
        this.location = location;
    }

    /** The keyword that cannot be expressed, such as {@code not} or {@code pattern}. */
    public String keyword() {
        return keyword;
    }

    /** Where it is, as a JSON Pointer into the schema ({@code ""}: the root). */
    public String location() {
        return location;
    }
}
