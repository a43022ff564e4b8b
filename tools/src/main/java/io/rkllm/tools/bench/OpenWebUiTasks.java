package io.rkllm.tools.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;

/** Open WebUI's default background task prompts, filled with a chat's history as Open WebUI does. */
final class OpenWebUiTasks {
    private OpenWebUiTasks() {
    }

    static String title(ArrayNode messages) {
        return """
                ### Task:
                Generate a concise, 3-5 word title with an emoji summarizing the chat history.
                ### Guidelines:
                - The title should clearly represent the main theme or subject of the conversation.
                - Use emojis that enhance understanding of the topic, but avoid quotation marks or special formatting.
                - Write the title in the chat's primary language; default to English if multilingual.
                - Prioritize accuracy over excessive creativity; keep it clear and simple.
                ### Output:
                JSON format: { "title": "your concise title here" }
                ### Chat History:
                <chat_history>
                """ + history(messages, 2) + "\n</chat_history>";
    }

    static String tags(ArrayNode messages) {
        return """
                ### Task:
                Generate 1-3 broad tags categorizing the main themes of the chat history, along with 1-3 more specific subtopic tags.
                ### Guidelines:
                - Start with high-level domains (e.g. Science, Technology, Philosophy, Arts, Politics, Business, Health, Sports, Entertainment, Education)
                - Consider including relevant subfields/subdomains if they are strongly represented throughout the conversation
                - If content is too short (less than 3 messages) or too diverse, use only ["General"]
                ### Output:
                JSON format: { "tags": ["tag1", "tag2", "tag3"] }
                ### Chat History:
                <chat_history>
                """ + history(messages, 6) + "\n</chat_history>";
    }

    static String followUps(ArrayNode messages) {
        return """
                ### Task:
                Suggest 3-5 relevant follow-up questions or prompts that the user might naturally ask next in this conversation as a **user**, based on the chat history, to help continue or deepen the discussion.
                ### Guidelines:
                - Write all follow-up questions from the user's point of view, directed to the assistant.
                - Make questions concise, clear, and directly related to the discussed topic(s).
                ### Output:
                JSON format: { "follow_ups": ["Question 1?", "Question 2?", "Question 3?"] }
                ### Chat History:
                <chat_history>
                """ + history(messages, 6) + "\n</chat_history>";
    }

    static String queries(ArrayNode messages) {
        return """
                ### Task:
                Analyze the chat history to determine the necessity of generating search queries, in the given language. By default, **prioritize generating 1-3 broad and relevant search queries** unless it is absolutely certain that no additional information is required.
                ### Output:
                Strictly return in JSON format:
                {
                  "queries": ["query1", "query2"]
                }
                ### Chat History:
                <chat_history>
                """ + history(messages, 6) + "\n</chat_history>";
    }

    /** The last {@code count} user/assistant messages as USER:/ASSISTANT: lines. */
    private static String history(ArrayNode messages, int count) {
        StringBuilder s = new StringBuilder();
        int start = Math.max(0, messages.size() - count);
        for (int i = start; i < messages.size(); i++) {
            JsonNode m = messages.get(i);
            String role = m.get("role").asText();
            if (role.equals("system")) {
                continue;
            }
            if (!s.isEmpty()) {
                s.append('\n');
            }
            s.append(role.equals("user") ? "USER: " : "ASSISTANT: ").append(m.get("content").asText());
        }
        return s.toString();
    }
}
