package io.rkllm.server.boot;

import java.io.File;
import java.io.IOException;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * The jar's entry point, compiled for Java 8 (the build compiles this package alone with {@code --release 8})
 * so that {@code java -jar} on an older Java than 25 (Debian 12's default is 17) can load it and say what
 * to do, instead of failing with an UnsupportedClassVersionError that names a class file version. On Java
 * 25 it hands over to {@code io.rkllm.server.Main} at once; by name, since a Java 8 class cannot refer to a
 * Java 25 one.
 */
public final class JavaVersionGate {
    static final int REQUIRED = 25;
    private static final Pattern RELEASE_VERSION = Pattern.compile("(?m)^JAVA_VERSION=\"(\\d+)");

    private JavaVersionGate() {
    }

    public static void main(String[] args) throws Throwable {
        int feature = feature(System.getProperty("java.specification.version", "0"));
        if (feature < REQUIRED) {
            System.err.print(message(System.getProperty("java.version", "?"), System.getProperty("java.home", "?"),
                    jar(), installed(Paths.get("/usr/lib/jvm"))));
            System.exit(2);
        }
        MethodHandles.publicLookup().findStatic(Class.forName("io.rkllm.server.Main"), "main",
                MethodType.methodType(void.class, String[].class)).invokeExact(args);
    }

    /** 25 for "25", 1.8's 8 for "1.8". */
    static int feature(String specification) {
        String s = specification.startsWith("1.") ? specification.substring(2) : specification;
        int end = 0;
        while (end < s.length() && Character.isDigit(s.charAt(end))) {
            end++;
        }
        return end == 0 ? 0 : Integer.parseInt(s.substring(0, end));
    }

    /** What to do, naming an installed Java 25 when there is one. */
    static String message(String version, String home, String jar, List<Path> java25) {
        StringBuilder s = new StringBuilder();
        s.append("rkllm-server needs Java ").append(REQUIRED).append(" or newer; this java is ").append(version)
                .append(" (").append(home).append(").\n");
        if (!java25.isEmpty()) {
            s.append("  A Java ").append(REQUIRED).append(" is installed: ").append(java25.get(0).resolve("bin")
                    .resolve("java")).append(" -jar ").append(jar).append(" ...\n");
        }
        s.append("  The launcher finds one by itself: ./rkllm-server in a checkout, rkllm-server when installed.\n");
        if (java25.isEmpty()) {
            s.append("  To install one: sudo apt install openjdk-25-jre-headless where the distribution has it, else\n"
                    + "  Temurin 25 from Adoptium's apt repository (docs/deploy.md, step 2).\n");
        }
        return s.toString();
    }

    /** The Java installations of version 25 or newer in {@code jvms}, by their release file. */
    static List<Path> installed(Path jvms) {
        List<Path> found = new ArrayList<>();
        if (!Files.isDirectory(jvms)) {
            return found;
        }
        try (Stream<Path> homes = Files.list(jvms)) {
            homes.sorted().forEach(home -> {
                Path release = home.resolve("release");
                try {
                    Matcher m = RELEASE_VERSION.matcher(new String(Files.readAllBytes(release), StandardCharsets.UTF_8));
                    if (Files.isExecutable(home.resolve("bin").resolve("java")) && m.find()
                            && Integer.parseInt(m.group(1)) >= REQUIRED && !Files.isSymbolicLink(home)) {
                        found.add(home);
                    }
                } catch (IOException | RuntimeException unreadable) {
                    // not a Java installation (or not one we can read): not a candidate
                }
            });
        } catch (IOException e) {
            return found;
        }
        return found;
    }

    private static String jar() {
        try {
            return new File(JavaVersionGate.class.getProtectionDomain().getCodeSource().getLocation().toURI()).getPath();
        } catch (Exception e) {
            return "rkllm-server.jar";
        }
    }
}
