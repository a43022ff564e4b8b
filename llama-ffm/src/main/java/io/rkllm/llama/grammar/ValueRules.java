package io.rkllm.llama.grammar;

/**
 * What the grammar of a string, an array or an object asks of the schema's converter: the rule of a value written
 * inside it (a property, an item), a name for a rule's body, and a way back when a part admits no value.
 */
interface ValueRules {
    /** A point to go back to when a part of the schema turns out to admit no value. */
    int mark();

    /** Forgets the rules made since {@code mark}. */
    void rollback(int mark);

    /** The rule name for {@code schema} where a value is written (an object's property, an array's item). */
    String value(Object schema, String at, String hint);

    /** A rule name for {@code body}: the body itself when it is one already. */
    String named(String hint, String body);
}
