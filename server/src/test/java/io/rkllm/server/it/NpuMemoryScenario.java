package io.rkllm.server.it;

import com.fasterxml.jackson.databind.JsonNode;
import io.rkllm.ffm.Abi;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The server's own loads against the simulated NPU memory budget, in a process of its own: on ABI 1.3 a load
 * beyond the budget kills the process (SIGSEGV), so {@link NpuMemoryTest} runs this as a child and reads what it
 * printed, one {@code key=value} line per observation. Two models of 2000 MB each and one of 4000 MB, a budget of
 * 3000 MB in the simulated runtime and in the server's configuration, room for three models by count.
 *
 * <p>Arguments: the directory, the ABI label.
 */
public final class NpuMemoryScenario {
    private NpuMemoryScenario() {
    }

    public static void main(String[] args) throws Exception {
        Path dir = Path.of(args[0]);
        Abi abi = args[1].equals("1.2") ? Abi.V1_2 : Abi.V1_3;
        Path trace = dir.resolve("npu.trace.jsonl");
        Map<String, String> common = Map.of("npu_budget_mb", "3000", "trace", trace.toString());
        try (TestServer server = TestServer.in(dir.resolve("server")).abi(abi)
                .model("a", with(common, "memory_mb", "2000"))
                // b decodes at 200 tokens/s: a request for 100 tokens keeps it busy for half a second
                .model("b", with(common, "memory_mb", "2000", "time_scale", "1", "init_ms", "0", "decode_tps", "200"))
                .model("c", with(common, "memory_mb", "4000"))
                .sidecar("a", "memory_mb: 2000\n").sidecar("b", "memory_mb: 2000\n").sidecar("c", "memory_mb: 4000\n")
                .set("models.max_loaded", "3").set("models.memory_budget_mb", "3000").start()) {
            ask(server, "a", "1");
            ask(server, "b", "2");
            ask(server, "c", "3");
            ask(server, "a", "4");
            if (abi == Abi.V1_2) {
                print("events", String.join(",", events(trace)));
                return;
            }
            // b busy with a long answer while a is asked for: a waits for b to finish, then b gives way
            try (RawHttp busy = RawHttp.post(server.port(), "/v1/chat/completions", chat("b", "[[tokens:100]]", true))) {
                busy.readUntil("\"content\":", 1);
                ask(server, "a", "5");
                busy.readUntil("[DONE]", 1);
                print("busy.finish", busy.text().contains("\"finish_reason\":\"stop\"") ? "stop" : busy.text());
            }
            print("events", String.join(",", events(trace)));
        } finally {
            print("end", "clean");
        }
    }

    private static Map<String, String> with(Map<String, String> common, String... pairs) {
        Map<String, String> keys = new HashMap<>(common);
        for (int i = 0; i < pairs.length; i += 2) {
            keys.put(pairs[i], pairs[i + 1]);
        }
        return keys;
    }

    private static String chat(String model, String content, boolean stream) {
        return "{\"model\":\"" + model + "\",\"messages\":[{\"role\":\"user\",\"content\":\"" + content + "\"}]"
                + (stream ? ",\"stream\":true" : "") + "}";
    }

    private static void ask(TestServer server, String model, String step) throws IOException {
        TestServer.Reply reply = server.postForReply("/v1/chat/completions", chat(model, "[[say:" + model + "]]",
                false));
        JsonNode body = reply.json();
        String what = reply.status() == 200 ? body.at("/choices/0/message/content").asText()
                : body.at("/error/code").asText() + " " + body.at("/error/message").asText();
        print(step + "." + model, reply.status() + " " + what);
    }

    /** Inits and destroys of every model, in order: "init:a:ok", "destroy:a", ... */
    private static List<String> events(Path trace) throws IOException {
        Map<Integer, String> names = new HashMap<>();
        List<String> out = new ArrayList<>();
        for (String line : Files.readAllLines(trace)) {
            JsonNode n = TestServer.JSON.readTree(line);
            String call = n.get("call").asText();
            if (call.equals("init")) {
                names.put(n.get("handle").asInt(), n.get("model").asText());
                out.add("init:" + n.get("model").asText() + ":" + n.get("result").asText());
            } else if (call.equals("destroy")) {
                out.add("destroy:" + names.get(n.get("handle").asInt()));
            } else if (call.equals("run")) {
                out.add("run:" + names.get(n.get("handle").asInt()));
            }
        }
        return out;
    }

    private static void print(String key, String value) {
        System.out.println("scenario " + key + "=" + value.replace('\n', ' '));
        System.out.flush();
    }
}
