package io.rkllm.tools.bench;

import java.util.List;

/** A chat of the replayed session: its system prompt and the user's questions, in order. */
record ChatScript(String name, String system, List<String> questions) {

    static List<ChatScript> session() {
        return List.of(
                new ChatScript("chat-a", "You are a helpful assistant for people who run small computers at home.",
                        List.of("I have an Orange Pi 5 Plus with 16 GB of RAM. What can I run on its NPU?",
                                "How much memory does a 1.7B model take when it is quantised to 8 bits?",
                                "And how fast would it answer, roughly, in tokens per second?",
                                "Could I run two models at the same time?",
                                "What cooling do I need if it runs all day?",
                                "Thanks! Summarise the plan in three bullet points.")),
                new ChatScript("chat-b", "You are a friendly cooking assistant. Keep answers practical.",
                        List.of("What can I cook tonight with rice, eggs and spinach?",
                                "Make it vegetarian but with more protein.",
                                "How long does that take in total?",
                                "Can I prepare part of it the day before?",
                                "What wine or drink goes with it?",
                                "Write the shopping list for four people.")));
    }
}
