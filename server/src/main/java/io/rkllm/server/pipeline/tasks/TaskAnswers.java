package io.rkllm.server.pipeline.tasks;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Answers Open WebUI's task requests from the request itself, without inference: the chat history
 * is inside the task prompt. Also checks that a model's answer has the JSON shape Open WebUI parses.
 */
public final class TaskAnswers {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Pattern TURN = Pattern.compile("(?m)^(USER|ASSISTANT):\\s?");
    private static final Pattern HISTORY = Pattern.compile("<chat_history>\\s*(.*?)\\s*</chat_history>", Pattern.DOTALL);
    private static final Pattern TEXT = Pattern.compile("<text>(.*?)</text>", Pattern.DOTALL);
    private static final Pattern WORD = Pattern.compile("[\\p{L}\\p{N}][\\p{L}\\p{N}'-]*");
    private static final Set<String> STOPWORDS = Set.of("the", "and", "for", "are", "but", "not", "you", "your",
            "with", "this", "that", "have", "from", "what", "which", "when", "where", "how", "why", "who", "can",
            "could", "would", "should", "will", "about", "into", "does", "did", "was", "were", "been", "being",
            "there", "their", "they", "them", "then", "than", "some", "more", "most", "also", "just", "like",
            "tell", "please", "explain", "give", "make", "want", "need", "know", "help", "thanks", "thank",
            "hello", "write", "show", "list", "describe", "other", "these", "those", "such", "very", "much",
            "many", "any", "all", "its", "it's", "i'm", "let", "me", "my", "our", "we", "is", "it", "in", "of",
            "to", "a", "an", "on", "at", "be", "do", "or", "as", "by", "if", "so", "up", "out", "use", "using");

    private TaskAnswers() {
    }

    /** One turn of the chat history quoted in a task prompt. */
    public record Turn(boolean user, String text) {
    }

    /** The answer derived from the prompt, as the JSON text Open WebUI expects; empty when not derivable. */
    public static Optional<String> derive(TaskKind kind, String prompt) {
        List<Turn> turns = history(prompt);
        List<String> userTexts = turns.stream().filter(Turn::user).map(Turn::text).toList();
        return switch (kind) {
            case TITLE -> Optional.of(object("title", title(userTexts.isEmpty() ? "" : userTexts.getFirst())));
            case QUERIES -> Optional.of(object("queries", List.of(query(turns))));
            case TAGS -> Optional.of(object("tags", tags(userTexts)));
            case FOLLOW_UPS -> Optional.of(object("follow_ups", followUps(userTexts)));
            case AUTOCOMPLETE -> Optional.of(object("text", ""));
            case OTHER -> Optional.empty();
        };
    }

    /** Whether a model's answer carries the JSON object Open WebUI will look for. */
    public static boolean hasExpectedShape(TaskKind kind, String answer) {
        Optional<String> key = kind.jsonKey();
        if (key.isEmpty()) {
            return true;
        }
        int start = answer.indexOf('{');
        int end = answer.lastIndexOf('}');
        if (start < 0 || end <= start) {
            return false;
        }
        try {
            JsonNode node = JSON.readTree(answer.substring(start, end + 1));
            JsonNode value = node.get(key.get());
            return switch (kind) {
                case TITLE, AUTOCOMPLETE -> value != null && value.isTextual();
                default -> value != null && value.isArray();
            };
        } catch (Exception e) {
            return false;
        }
    }

    /** The turns quoted between {@code <chat_history>} tags as USER:/ASSISTANT: lines. */
    public static List<Turn> history(String prompt) {
        Matcher h = HISTORY.matcher(prompt);
        String body;
        if (h.find()) {
            body = h.group(1);
        } else {
            Matcher t = TEXT.matcher(prompt);
            return t.find() ? List.of(new Turn(true, t.group(1).strip())) : List.of();
        }
        List<Turn> turns = new ArrayList<>();
        Matcher m = TURN.matcher(body);
        int lastStart = -1;
        boolean lastUser = true;
        while (m.find()) {
            if (lastStart >= 0) {
                turns.add(new Turn(lastUser, body.substring(lastStart, m.start()).strip()));
            }
            lastUser = m.group(1).equals("USER");
            lastStart = m.end();
        }
        if (lastStart >= 0) {
            turns.add(new Turn(lastUser, body.substring(lastStart).strip()));
        } else if (!body.isBlank()) {
            turns.add(new Turn(true, body.strip()));
        }
        return turns;
    }

    static String title(String firstUserMessage) {
        String sentence = firstUserMessage.strip().split("(?<=[.!?。！？])\\s|\\n", 2)[0];
        List<String> words = new ArrayList<>();
        Matcher m = WORD.matcher(sentence);
        while (m.find() && words.size() < 5) {
            words.add(m.group());
        }
        if (words.isEmpty()) {
            return "New Chat";
        }
        StringBuilder title = new StringBuilder();
        for (String w : words) {
            if (!title.isEmpty()) {
                title.append(' ');
            }
            title.append(Character.toUpperCase(w.charAt(0))).append(w.substring(1));
        }
        return title.toString();
    }

    static String query(List<Turn> turns) {
        List<Turn> users = turns.stream().filter(Turn::user).toList();
        if (users.isEmpty()) {
            return "";
        }
        String last = users.getLast().text();
        if (keywords(List.of(last)).size() < 3 && users.size() > 1) {
            // a vague follow-up ("and the price?") searches better with the earlier question's subject
            List<String> subject = keywords(List.of(users.get(users.size() - 2).text()));
            String topic = String.join(" ", subject.subList(0, Math.min(4, subject.size())));
            return (topic + " " + last).strip();
        }
        return last.length() > 300 ? last.substring(0, 300) : last;
    }

    static List<String> tags(List<String> userTexts) {
        List<String> words = keywords(userTexts);
        List<String> tags = new ArrayList<>();
        for (String w : words.subList(0, Math.min(3, words.size()))) {
            tags.add(Character.toUpperCase(w.charAt(0)) + w.substring(1));
        }
        if (tags.isEmpty()) {
            tags.add("General");
        }
        return tags;
    }

    static List<String> followUps(List<String> userTexts) {
        List<String> words = keywords(userTexts.isEmpty() ? List.of() : List.of(userTexts.getLast()));
        String topic = words.isEmpty() ? "this" : String.join(" ", words.subList(0, Math.min(3, words.size())));
        return List.of("Can you explain " + topic + " in more detail?",
                "What are some examples of " + topic + "?",
                "What should I know next about " + topic + "?");
    }

    /** Content words by frequency (then first appearance), lower-cased. */
    static List<String> keywords(List<String> texts) {
        Map<String, Integer> counts = new LinkedHashMap<>();
        for (String text : texts) {
            Matcher m = WORD.matcher(text);
            while (m.find()) {
                String w = m.group().toLowerCase(Locale.ROOT);
                if (w.length() >= 3 && !STOPWORDS.contains(w) && !w.chars().allMatch(Character::isDigit)) {
                    counts.merge(w, 1, Integer::sum);
                }
            }
        }
        List<Map.Entry<String, Integer>> entries = new ArrayList<>(counts.entrySet());
        entries.sort((a, b) -> b.getValue() - a.getValue());
        return entries.stream().map(Map.Entry::getKey).toList();
    }

    private static String object(String key, Object value) {
        ObjectNode node = JSON.createObjectNode();
        node.set(key, JSON.valueToTree(value));
        return node.toString();
    }
}
