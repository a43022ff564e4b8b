package io.rkllm.server.config;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The documented configuration (config/rkllm-server.yaml, installed as /etc/rkllm-server/rkllm-server.yaml) names
 * every key the server has a default for, in its section: a setting added to the defaults and not to the file a user
 * edits is one nobody finds.
 */
class DocumentedConfigTest {

    @Test
    void everyKeyWithADefaultIsDocumentedInItsSection() throws Exception {
        JsonNode defaults;
        try (InputStream in = DocumentedConfigTest.class.getResourceAsStream("/rkllm-server-defaults.yaml")) {
            defaults = new ObjectMapper(new YAMLFactory()).readTree(in);
        }
        String documented = Files.readString(Path.of("..", "config", "rkllm-server.yaml"));
        Map<String, String> sections = sections(documented);
        List<String> missing = new ArrayList<>();
        for (var section : defaults.properties()) {
            String text = sections.getOrDefault(section.getKey(), "");
            for (String leaf : leaves(section.getValue())) {
                if (!Pattern.compile("(?m)^\\s*(#\\s*)?" + Pattern.quote(leaf) + ":").matcher(text).find()) {
                    missing.add(section.getKey() + "." + leaf);
                }
            }
        }
        assertThat(missing).as("keys with a default that config/rkllm-server.yaml does not document").isEmpty();
    }

    /** The names of a section's settings, nested ones by their own name. */
    private static List<String> leaves(JsonNode node) {
        List<String> names = new ArrayList<>();
        for (var field : node.properties()) {
            if (field.getValue().isObject() && !field.getValue().isEmpty()) {
                names.addAll(leaves(field.getValue()));
            } else {
                names.add(field.getKey());
            }
        }
        return names;
    }

    /** The file's text by top-level section. */
    private static Map<String, String> sections(String text) {
        Map<String, String> sections = new LinkedHashMap<>();
        String current = null;
        StringBuilder body = new StringBuilder();
        for (String line : text.split("\n")) {
            if (line.matches("[a-z_]+:.*")) {
                if (current != null) {
                    sections.put(current, body.toString());
                }
                current = line.substring(0, line.indexOf(':'));
                body.setLength(0);
            } else {
                body.append(line).append('\n');
            }
        }
        if (current != null) {
            sections.put(current, body.toString());
        }
        return sections;
    }
}
