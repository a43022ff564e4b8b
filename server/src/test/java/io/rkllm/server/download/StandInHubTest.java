package io.rkllm.server.download;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The stand-in Hub's read endpoints answer in the Hub's shapes: what huggingface_hub, llama.cpp and Ollama read. */
class StandInHubTest {
    private static final Pattern NEXT = Pattern.compile("<([^>]+)>;\\s*rel=\"next\"");

    private final StandInHub hub = StandInHub.start();
    private final HttpClient http = HttpClient.newBuilder().followRedirects(HttpClient.Redirect.NEVER).build();
    private final ObjectMapper json = new ObjectMapper();

    @AfterEach
    void stop() {
        hub.close();
    }

    private StandInHub.RepoBuilder vision() {
        return hub.repo("org/vision-GGUF")
                .file("README.md", "# a model\n".getBytes())
                .file("vision-Q4_K_M.gguf", new byte[] {1, 2, 3})
                .file("vision-Q8_0.gguf", new byte[] {4, 5, 6, 7})
                .file("mmproj-vision-f16.gguf", new byte[] {8, 9})
                .file("big/vision-Q6_K-00001-of-00002.gguf", new byte[] {10})
                .file("big/vision-Q6_K-00002-of-00002.gguf", new byte[] {11});
    }

    private HttpResponse<String> get(String path, String userAgent) throws Exception {
        return http.send(HttpRequest.newBuilder(URI.create(path.startsWith("http") ? path : hub.endpoint() + path))
                .header("User-Agent", userAgent).build(), HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void treeListsAFoldersEntriesOrEverythingBelowIt() throws Exception {
        vision();
        JsonNode root = json.readTree(get("/api/models/org/vision-GGUF/tree/main", "huggingface_hub/0.30").body());
        assertThat(root.findValuesAsText("path")).containsExactly("big", "README.md", "mmproj-vision-f16.gguf",
                "vision-Q4_K_M.gguf", "vision-Q8_0.gguf");
        assertThat(root.get(0).get("type").asText()).isEqualTo("directory");
        JsonNode q4 = root.get(3);
        assertThat(q4.get("type").asText()).isEqualTo("file");
        assertThat(q4.get("size").asLong()).isEqualTo(3);
        assertThat(q4.get("oid").asText()).hasSize(40);
        assertThat(q4.get("lfs").get("oid").asText()).isEqualTo(StandInHub.hex("SHA-256", new byte[] {1, 2, 3}));
        assertThat(q4.get("lfs").get("pointerSize").asInt()).isEqualTo(134);
        assertThat(root.get(1).has("lfs")).as("README.md is in Git, not LFS").isFalse();

        JsonNode all = json.readTree(get("/api/models/org/vision-GGUF/tree/main?recursive=True", "hf").body());
        assertThat(all.findValuesAsText("path")).hasSize(7).contains("big/vision-Q6_K-00002-of-00002.gguf");
        JsonNode big = json.readTree(get("/api/models/org/vision-GGUF/tree/main/big", "hf").body());
        assertThat(big.findValuesAsText("path")).containsExactly("big/vision-Q6_K-00001-of-00002.gguf",
                "big/vision-Q6_K-00002-of-00002.gguf");
    }

    @Test
    void aLongTreeComesInPagesLinkedByTheLinkHeader() throws Exception {
        vision();
        hub.treePageSize(3);
        List<String> paths = new ArrayList<>();
        Optional<String> next = Optional.of("/api/models/org/vision-GGUF/tree/main?recursive=true");
        int pages = 0;
        while (next.isPresent()) {
            HttpResponse<String> page = get(next.get(), "hf");
            assertThat(page.statusCode()).isEqualTo(200);
            json.readTree(page.body()).forEach(e -> paths.add(e.get("path").asText()));
            next = page.headers().firstValue("Link").map(NEXT::matcher).filter(Matcher::find).map(m -> m.group(1));
            pages++;
        }
        assertThat(pages).isEqualTo(3);
        assertThat(paths).hasSize(7).doesNotHaveDuplicates();
    }

    @Test
    void treeOfAnUnknownRevisionOrFolderIsA404() throws Exception {
        vision();
        HttpResponse<String> rev = get("/api/models/org/vision-GGUF/tree/v9", "hf");
        assertThat(rev.statusCode()).isEqualTo(404);
        assertThat(rev.headers().firstValue("X-Error-Code")).contains("RevisionNotFound");
        assertThat(get("/api/models/org/vision-GGUF/tree/main/nothing", "hf").statusCode()).isEqualTo(404);
        assertThat(get("/api/models/org/none/tree/main", "hf").headers().firstValue("X-Error-Code"))
                .contains("RepoNotFound");
    }

    @Test
    void refsNameTheCommitOfMain() throws Exception {
        vision();
        JsonNode refs = json.readTree(get("/api/models/org/vision-GGUF/refs", "llama-cpp/b6000").body());
        JsonNode info = json.readTree(get("/api/models/org/vision-GGUF", "hf").body());
        assertThat(refs.get("branches").get(0).get("name").asText()).isEqualTo("main");
        assertThat(refs.get("branches").get(0).get("targetCommit").asText()).isEqualTo(info.get("sha").asText());
    }

    @Test
    void llamaCppsManifestNamesTheTagsFileAndItsProjector() throws Exception {
        vision();
        JsonNode q8 = json.readTree(get("/v2/org/vision-GGUF/manifests/q8_0", "llama-cpp/b4916").body());
        assertThat(q8.get("ggufFile").get("rfilename").asText()).isEqualTo("vision-Q8_0.gguf");
        assertThat(q8.get("ggufFile").get("lfs").get("sha256").asText())
                .isEqualTo(StandInHub.hex("SHA-256", new byte[] {4, 5, 6, 7}));
        assertThat(q8.get("mmprojFile").get("rfilename").asText()).isEqualTo("mmproj-vision-f16.gguf");
        JsonNode latest = json.readTree(get("/v2/org/vision-GGUF/manifests/latest", "llama-cpp/b4916").body());
        assertThat(latest.get("ggufFile").get("rfilename").asText()).isEqualTo("vision-Q4_K_M.gguf");
        JsonNode split = json.readTree(get("/v2/org/vision-GGUF/manifests/Q6_K", "llama-cpp/b4916").body());
        assertThat(split.get("ggufFile").get("rfilename").asText()).isEqualTo("big/vision-Q6_K-00001-of-00002.gguf");
        assertThat(split.has("mmprojFile")).as("no projector in big/").isFalse();
    }

    @Test
    void ollamasManifestHasTheFilesAsLayersWhoseBlobsLeadToTheBytes() throws Exception {
        vision();
        HttpResponse<String> answer = get("/v2/org/vision-GGUF/manifests/Q4_K_M", "ollama/0.6.0");
        assertThat(answer.headers().firstValue("Content-Type")).contains(
                "application/vnd.docker.distribution.manifest.v2+json");
        JsonNode manifest = json.readTree(answer.body());
        assertThat(manifest.get("schemaVersion").asInt()).isEqualTo(2);
        assertThat(manifest.get("layers").findValuesAsText("mediaType")).containsExactly(
                "application/vnd.ollama.image.model", "application/vnd.ollama.image.projector");
        String model = manifest.get("layers").get(0).get("digest").asText();
        assertThat(model).isEqualTo("sha256:" + StandInHub.hex("SHA-256", new byte[] {1, 2, 3}));

        HttpResponse<String> blob = get("/v2/org/vision-GGUF/blobs/" + model, "ollama/0.6.0");
        assertThat(blob.statusCode()).isEqualTo(302);
        assertThat(blob.headers().firstValue("X-Linked-Size")).contains("3");
        HttpResponse<byte[]> bytes = http.send(HttpRequest.newBuilder(URI.create(blob.headers().firstValue("Location")
                .orElseThrow())).build(), HttpResponse.BodyHandlers.ofByteArray());
        assertThat(bytes.body()).containsExactly(1, 2, 3);

        String config = manifest.get("config").get("digest").asText();
        HttpResponse<String> configBlob = get("/v2/org/vision-GGUF/blobs/" + config, "ollama/0.6.0");
        assertThat(configBlob.statusCode()).isEqualTo(200);
        assertThat("sha256:" + StandInHub.hex("SHA-256", configBlob.body().getBytes())).isEqualTo(config);
    }

    @Test
    void manifestsRefuseAnUnknownTagARepositoryWithoutGgufAndAGatedOneWithoutItsToken() throws Exception {
        vision();
        hub.repo("org/safetensors").file("model.safetensors", new byte[] {1});
        hub.repo("org/gated-GGUF").file("g-Q4_K_M.gguf", new byte[] {1}).gated();
        HttpResponse<String> unknown = get("/v2/org/vision-GGUF/manifests/IQ1_S", "llama-cpp/b4916");
        assertThat(unknown.statusCode()).isEqualTo(400);
        assertThat(json.readTree(unknown.body()).get("error").asText()).contains("not a valid quantization");
        assertThat(get("/v2/org/safetensors/manifests/latest", "llama-cpp/b4916").statusCode()).isEqualTo(400);
        HttpResponse<String> gated = get("/v2/org/gated-GGUF/manifests/latest", "llama-cpp/b4916");
        assertThat(gated.statusCode()).isEqualTo(401);
        assertThat(gated.headers().firstValue("X-Error-Code")).contains("GatedRepo");
        HttpResponse<String> authorised = http.send(HttpRequest.newBuilder(URI.create(hub.endpoint()
                + "/v2/org/gated-GGUF/manifests/latest")).header("User-Agent", "llama-cpp/b4916")
                .header("Authorization", "Bearer " + hub.token()).build(), HttpResponse.BodyHandlers.ofString());
        assertThat(json.readTree(authorised.body()).get("ggufFile").get("rfilename").asText()).isEqualTo("g-Q4_K_M.gguf");
    }
}
