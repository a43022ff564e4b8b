package io.rkllm.server.backend.rkllm;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/** Users and groups as {@code /etc/passwd} and {@code /etc/group} describe them (local accounts only). */
final class Accounts {
    /** A user: its ids and every group it belongs to (primary and supplementary). */
    record User(String name, int uid, int gid, Set<Integer> groups) {
    }

    private final Map<String, int[]> users = new HashMap<>();
    private final Map<Integer, String> groupNames = new HashMap<>();
    private final Map<String, Set<Integer>> memberships = new HashMap<>();

    Accounts(Path etc) {
        for (String line : lines(etc.resolve("passwd"))) {
            String[] f = line.split(":", -1);
            if (f.length >= 4) {
                parseInt(f[2]).ifPresent(uid -> parseInt(f[3]).ifPresent(gid -> users.put(f[0], new int[] {uid, gid})));
            }
        }
        for (String line : lines(etc.resolve("group"))) {
            String[] f = line.split(":", -1);
            if (f.length >= 4) {
                Optional<Integer> gid = parseInt(f[2]);
                if (gid.isEmpty()) {
                    continue;
                }
                groupNames.putIfAbsent(gid.get(), f[0]);
                for (String member : f[3].split(",")) {
                    if (!member.isBlank()) {
                        memberships.computeIfAbsent(member.strip(), k -> new LinkedHashSet<>()).add(gid.get());
                    }
                }
            }
        }
    }

    Optional<User> user(String name) {
        int[] ids = users.get(name);
        if (ids == null) {
            return Optional.empty();
        }
        Set<Integer> groups = new LinkedHashSet<>();
        groups.add(ids[1]);
        groups.addAll(memberships.getOrDefault(name, Set.of()));
        return Optional.of(new User(name, ids[0], ids[1], groups));
    }

    /** Whether a group of this name exists. */
    boolean hasGroup(String name) {
        return groupNames.containsValue(name);
    }

    String groupName(int gid) {
        return groupNames.getOrDefault(gid, Integer.toString(gid));
    }

    String userName(int uid) {
        return users.entrySet().stream().filter(e -> e.getValue()[0] == uid).map(Map.Entry::getKey).findFirst()
                .orElse(Integer.toString(uid));
    }

    List<String> groupNames(User user) {
        return user.groups().stream().map(this::groupName).toList();
    }

    private static List<String> lines(Path file) {
        try {
            return Files.readAllLines(file);
        } catch (IOException | SecurityException e) {
            return List.of();
        }
    }

    private static Optional<Integer> parseInt(String text) {
        try {
            return Optional.of(Integer.parseInt(text.strip()));
        } catch (NumberFormatException e) {
            return Optional.empty();
        }
    }
}
