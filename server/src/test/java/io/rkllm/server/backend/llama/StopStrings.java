package io.rkllm.server.backend.llama;

/** Stop strings the tests take from an answer the model gave, to end the same answer there when asked again. */
public final class StopStrings {
    private StopStrings() {
    }

    /** Where a stop string of three plain characters, first found there, starts after the answer's first four. */
    public static int stopAt(String answer) {
        for (int i = 4; i + 3 <= answer.length(); i++) {
            String s = answer.substring(i, i + 3);
            if (s.chars().allMatch(c -> c > ' ' && c < 0x7F) && answer.indexOf(s) == i) {
                return i;
            }
        }
        throw new AssertionError("no stop string in " + answer);
    }
}
