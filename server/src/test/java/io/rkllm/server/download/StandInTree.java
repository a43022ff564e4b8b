package io.rkllm.server.download;

import io.rkllm.llama.text.JsonString;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeSet;

/**
 * The stand-in Hub's {@code GET /api/models/OWNER/REPO/tree/REV[/PATH][?recursive=true][&cursor=N]}, in the Hub's
 * shape (what huggingface_hub's {@code list_repo_tree} and llama.cpp's {@code hf_cache::get_repo_files} read): a JSON
 * array of {@code {"type": "directory", "oid", "size": 0, "path"}} and {@code {"type": "file", "oid", "size", "path"}}
 * entries, a file in LFS with {@code "lfs": {"oid", "size", "pointerSize"}} (the SHA-256 is the LFS oid, the Git blob
 * id the entry's). Without {@code recursive} the folder's own entries only. A long listing comes in pages, the next
 * one named by a {@code Link: <URL>; rel="next"} header, as the Hub pages its big repositories.
 */
final class StandInTree {
    /** One page of the listing, and the address of the next if there is one. */
    record Page(String json, Optional<String> next) {
    }

    private StandInTree() {
    }

    /**
     * @param base   the listing's address without its query (the next page's link is built on it)
     * @param folder the folder listed ("" for the repository's root)
     * @param from   the first entry of this page (the cursor)
     */
    static Page page(Map<String, StandInHub.Blob> files, String base, String folder, boolean recursive, int from,
                     int pageSize) {
        List<String> entries = entries(files, folder, recursive);
        int to = Math.min(entries.size(), from + pageSize);
        StringBuilder json = new StringBuilder("[");
        for (int i = from; i < to; i++) {
            json.append(i == from ? "" : ",").append(entries.get(i));
        }
        json.append(']');
        Optional<String> next = to < entries.size() ? Optional.of(base + "?" + (recursive ? "recursive=true&" : "")
                + "cursor=" + URLEncoder.encode(Integer.toString(to), StandardCharsets.UTF_8)) : Optional.empty();
        return new Page(json.toString(), next);
    }

    /** Whether the folder exists: the root, or a prefix of a file's path. */
    static boolean exists(Map<String, StandInHub.Blob> files, String folder) {
        return folder.isEmpty() || files.keySet().stream().anyMatch(p -> p.startsWith(folder + "/"));
    }

    /** The entries under {@code folder}, folders before files at each level (in path order), as JSON objects. */
    private static List<String> entries(Map<String, StandInHub.Blob> files, String folder, boolean recursive) {
        String prefix = folder.isEmpty() ? "" : folder + "/";
        TreeSet<String> folders = new TreeSet<>();
        TreeSet<String> paths = new TreeSet<>();
        for (String path : files.keySet()) {
            if (!path.startsWith(prefix)) {
                continue;
            }
            String[] rest = path.substring(prefix.length()).split("/");
            StringBuilder at = new StringBuilder(folder);
            for (int i = 0; i < rest.length - 1 && (recursive || i == 0); i++) {
                at.append(at.isEmpty() ? "" : "/").append(rest[i]);
                folders.add(at.toString());
            }
            if (recursive || rest.length == 1) {
                paths.add(path);
            }
        }
        List<String> out = new ArrayList<>();
        for (String f : folders) {
            out.add("{\"type\":\"directory\",\"oid\":\"" + StandInHub.hex("SHA-1", f.getBytes(StandardCharsets.UTF_8))
                    + "\",\"size\":0,\"path\":" + JsonString.quote(f) + "}");
        }
        for (String p : paths) {
            StandInHub.Blob b = files.get(p);
            StringBuilder e = new StringBuilder("{\"type\":\"file\",\"oid\":\"").append(b.gitSha1())
                    .append("\",\"size\":").append(b.size()).append(",\"path\":").append(JsonString.quote(p));
            if (b.lfs()) {
                e.append(",\"lfs\":{\"oid\":\"").append(b.sha256()).append("\",\"size\":").append(b.size())
                        .append(",\"pointerSize\":134}");
            }
            out.add(e.append('}').toString());
        }
        return out;
    }
}
