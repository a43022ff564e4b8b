package io.rkllm.server.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.prometheus.metrics.expositionformats.generated.com_google_protobuf_4_35_0.Metrics;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A scrape of /metrics as samples. The protobuf exposition is decoded with Prometheus' own generated classes
 * (its {@code metrics.proto}, from io.prometheus:prometheus-metrics-exposition-formats); the text exposition
 * is checked line by line against the text format 0.0.4 grammar, and its samples must equal the protobuf's.
 */
record Exposition(List<Sample> samples, Map<String, String> types) {
    /** One series' value: a counter or gauge, or a histogram's _count / _sum / _bucket. */
    record Sample(String name, Map<String, String> labels, double value) {
        String key() {
            return name + labels;
        }
    }

    private static final String NAME = "[a-zA-Z_:][a-zA-Z0-9_:]*";
    private static final String VALUE = "(?:[-+]?(?:[0-9]*\\.?[0-9]+(?:[eE][-+]?[0-9]+)?|Inf)|NaN)";
    private static final Pattern SAMPLE = Pattern.compile("(" + NAME + ")(?:\\{((?:[a-zA-Z_][a-zA-Z0-9_]*=\""
            + "(?:[^\"\\\\\\n]|\\\\[\\\\\"n])*\",?)*)\\})? (" + VALUE + ")(?: -?[0-9]+)?");
    private static final Pattern LABEL = Pattern.compile("([a-zA-Z_][a-zA-Z0-9_]*)=\"((?:[^\"\\\\]|\\\\.)*)\"");
    private static final Pattern HELP = Pattern.compile("# HELP (" + NAME + ") .*");
    private static final Pattern TYPE = Pattern.compile("# TYPE (" + NAME + ") (counter|gauge|histogram|summary|untyped)");

    static Exposition protobuf(byte[] body) throws IOException {
        List<Sample> samples = new ArrayList<>();
        Map<String, String> types = new LinkedHashMap<>();
        InputStream in = new ByteArrayInputStream(body);
        Metrics.MetricFamily family;
        while ((family = Metrics.MetricFamily.parseDelimitedFrom(in)) != null) {
            String name = family.getName();
            types.put(name, family.getType().name().toLowerCase(java.util.Locale.ROOT));
            for (Metrics.Metric m : family.getMetricList()) {
                Map<String, String> labels = new TreeMap<>();
                m.getLabelList().forEach(l -> labels.put(l.getName(), l.getValue()));
                switch (family.getType()) {
                    case COUNTER -> samples.add(new Sample(name, labels, m.getCounter().getValue()));
                    case GAUGE -> samples.add(new Sample(name, labels, m.getGauge().getValue()));
                    case UNTYPED -> samples.add(new Sample(name, labels, m.getUntyped().getValue()));
                    case HISTOGRAM -> {
                        samples.add(new Sample(name + "_count", labels, m.getHistogram().getSampleCount()));
                        samples.add(new Sample(name + "_sum", labels, m.getHistogram().getSampleSum()));
                        for (Metrics.Bucket b : m.getHistogram().getBucketList()) {
                            Map<String, String> withLe = new TreeMap<>(labels);
                            withLe.put("le", format(b.getUpperBound()));
                            samples.add(new Sample(name + "_bucket", withLe, b.getCumulativeCount()));
                        }
                    }
                    case SUMMARY -> {
                        samples.add(new Sample(name + "_count", labels, m.getSummary().getSampleCount()));
                        samples.add(new Sample(name + "_sum", labels, m.getSummary().getSampleSum()));
                    }
                    default -> throw new IllegalStateException("unexpected type " + family.getType());
                }
            }
        }
        return new Exposition(samples, types);
    }

    /** The text format 0.0.4: every line is a HELP, a TYPE or a sample, and the body ends with a newline. */
    static Exposition text(String body) {
        assertThat(body).endsWith("\n");
        List<Sample> samples = new ArrayList<>();
        Map<String, String> types = new LinkedHashMap<>();
        for (String line : body.substring(0, body.length() - 1).split("\n", -1)) {
            if (line.startsWith("# HELP ")) {
                assertThat(line).matches(HELP);
                continue;
            }
            if (line.startsWith("#")) {
                Matcher t = TYPE.matcher(line);
                assertThat(t.matches()).as("TYPE line: %s", line).isTrue();
                types.put(t.group(1), t.group(2));
                continue;
            }
            Matcher m = SAMPLE.matcher(line);
            assertThat(m.matches()).as("sample line: %s", line).isTrue();
            Map<String, String> labels = new TreeMap<>();
            if (m.group(2) != null) {
                Matcher l = LABEL.matcher(m.group(2));
                while (l.find()) {
                    labels.put(l.group(1), l.group(2).replace("\\\"", "\"").replace("\\n", "\n")
                            .replace("\\\\", "\\"));
                }
            }
            if (labels.containsKey("le")) {
                labels.put("le", format(number(labels.get("le"))));
            }
            samples.add(new Sample(m.group(1), labels, number(m.group(3))));
        }
        return new Exposition(samples, types);
    }

    private static double number(String text) {
        return Double.parseDouble(text.replace("Inf", "Infinity"));
    }

    private static String format(double d) {
        return Double.isInfinite(d) ? "+Inf" : Double.toString(d);
    }

    Optional<Double> value(String name, Map<String, String> labels) {
        List<Sample> found = samples.stream().filter(s -> s.name().equals(name)
                && s.labels().entrySet().containsAll(labels.entrySet())).toList();
        assertThat(found.size()).as("series %s%s matched by at most one sample: %s", name, labels, found)
                .isLessThanOrEqualTo(1);
        return found.stream().findFirst().map(Sample::value);
    }

    double get(String name, Map<String, String> labels) {
        return value(name, labels).orElseThrow(() -> new AssertionError("no series " + name + labels + " in "
                + samples.stream().map(Sample::name).distinct().sorted().toList()));
    }

    /** The sum over every series of {@code name} whose labels include {@code labels}. */
    double sum(String name, Map<String, String> labels) {
        return samples.stream().filter(s -> s.name().equals(name)
                && s.labels().entrySet().containsAll(labels.entrySet())).mapToDouble(Sample::value).sum();
    }
}
