package io.rkllm.llama.grammar;

/** A schema (or one branch of it) that no value satisfies: dropped from a union, refused anywhere else. */
final class UnsatisfiableSchemaException extends UnsupportedSchemaException {
    private static final long serialVersionUID = 1L;

    UnsatisfiableSchemaException(String keyword, String location, String reason) {
        super(keyword, location, "no value satisfies it: " + reason);
    }
}
