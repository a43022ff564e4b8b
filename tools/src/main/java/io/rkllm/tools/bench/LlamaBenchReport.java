package io.rkllm.tools.bench;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.Function;
import java.util.function.ToDoubleFunction;

/**
 * {@code bench llama}'s figures: medians over the rounds, the server's overhead against the library alone, and the
 * parallel chats' aggregate decode rate; as Markdown tables and as JSON.
 */
final class LlamaBenchReport {
    private static final ObjectMapper JSON = new ObjectMapper();

    private LlamaBenchReport() {
    }

    /** The median of the finite values (NaN when there is none). */
    static double median(List<Double> values) {
        double[] v = values.stream().mapToDouble(Double::doubleValue).filter(Double::isFinite).sorted().toArray();
        if (v.length == 0) {
            return Double.NaN;
        }
        return v.length % 2 == 1 ? v[v.length / 2] : (v[v.length / 2 - 1] + v[v.length / 2]) / 2;
    }

    static <T> double median(List<T> items, ToDoubleFunction<T> value) {
        return median(items.stream().map(i -> value.applyAsDouble(i)).toList());
    }

    /** How much longer the server took than the library for the same work, in % (its rate's shortfall, inverted). */
    static double overhead(double libraryRate, double serverRate) {
        return (libraryRate / serverRate - 1) * 100;
    }

    /**
     * The rates of one way of measuring, prefill and decode tokens/s: the median round's and the fastest round's (on a
     * shared machine other work only ever slows a round down, so the fastest is the nearest to the machine's speed).
     */
    record Rates(double prefill, double decode, double bestPrefill, double bestDecode) {
        static Rates of(List<Timing> timings) {
            return new Rates(median(timings, Timing::prefillPerSecond), median(timings, Timing::decodePerSecond),
                    best(timings, Timing::prefillPerSecond), best(timings, Timing::decodePerSecond));
        }
    }

    static <T> double best(List<T> items, ToDoubleFunction<T> value) {
        return items.stream().mapToDouble(value).filter(Double::isFinite).max().orElse(Double.NaN);
    }

    /** The medians of {@code chats} chats at once. */
    record ParallelRow(int chats, double aggregate, double perChat, double serverPerChat, double gain) {
    }

    /**
     * The server's overhead as the median of each round's own comparison (the library and the server ran one right
     * after the other, so a machine that gets busier or quieter over the run moves both alike): prefill and decode.
     */
    record Overhead(double prefill, double decode, double fastestPrefill, double fastestDecode) {
        static Overhead of(List<LlamaBench.Round> rounds, Function<LlamaBench.Round, Timing> server) {
            Rates library = Rates.of(rounds.stream().map(LlamaBench.Round::library).toList());
            Rates other = Rates.of(rounds.stream().map(server).toList());
            return new Overhead(median(rounds, r -> overhead(r.library().prefillPerSecond(),
                    server.apply(r).prefillPerSecond())), median(rounds, r -> overhead(r.library().decodePerSecond(),
                    server.apply(r).decodePerSecond())), overhead(library.bestPrefill(), other.bestPrefill()),
                    overhead(library.bestDecode(), other.bestDecode()));
        }
    }

    static Rates library(LlamaBench.Result r) {
        return Rates.of(r.rounds().stream().map(LlamaBench.Round::library).toList());
    }

    static Rates serverTimings(LlamaBench.Result r) {
        return Rates.of(r.rounds().stream().map(LlamaBench.Round::server).toList());
    }

    static Rates client(LlamaBench.Result r) {
        return Rates.of(r.rounds().stream().map(LlamaBench.Round::client).toList());
    }

    static List<ParallelRow> parallel(LlamaBench.Result r) {
        int most = r.parallel().stream().mapToInt(LlamaBench.ParallelRun::chats).max().orElse(0);
        double one = Double.NaN;
        List<ParallelRow> rows = new ArrayList<>();
        for (int chats = 1; chats <= most; chats++) {
            int n = chats;
            List<LlamaBench.ParallelRun> runs = r.parallel().stream().filter(p -> p.chats() == n).toList();
            double aggregate = median(runs, LlamaBench.ParallelRun::aggregatePerSecond);
            double perChat = median(runs.stream().flatMap(p -> p.client().stream()).toList(), Timing::decodePerSecond);
            double serverPerChat = median(runs.stream().flatMap(p -> p.server().stream()).toList(),
                    Timing::decodePerSecond);
            one = chats == 1 ? aggregate : one;
            rows.add(new ParallelRow(chats, aggregate, perChat, serverPerChat, aggregate / one));
        }
        return rows;
    }

    static String markdown(LlamaBench.Result r) {
        LlamaBench.Setup s = r.setup();
        Rates lib = library(r);
        Rates srv = serverTimings(r);
        Rates cli = client(r);
        StringBuilder b = new StringBuilder();
        b.append(String.format(Locale.ROOT, "#### %s: %s%n%n", s.modelId(), s.description()));
        b.append(String.format(Locale.ROOT, "%,d parameters, %s, %.0f MB; %s; %d threads; context %d tokens per"
                        + " conversation (%d cells shared by %d sequences), batch %d; prompt %d tokens, %d generated,"
                        + " greedy; %d rounds after a warm-up.%n%n", s.parameters(), s.quantisation(), s.fileBytes() / 1e6,
                s.library(), s.threads(), s.contextLength(), s.contextCells(), s.parallel() + 1, s.batchSize(),
                s.plan().promptTokens(), s.plan().maxTokens(), s.plan().runs()));
        b.append("| measured by | prefill tokens/s (median) | (fastest) | decode tokens/s (median) | (fastest) |\n"
                + "|---|---:|---:|---:|---:|\n");
        b.append(row("library alone (llama-ffm)", lib));
        b.append(row("server, its own timings", srv));
        b.append(row("server, client's clock (HTTP, streamed)", cli));
        Overhead client = Overhead.of(r.rounds(), LlamaBench.Round::client);
        Overhead engine = Overhead.of(r.rounds(), LlamaBench.Round::server);
        b.append(String.format(Locale.ROOT, "| **server overhead** (client's clock vs library) | **%+.1f %%** |"
                        + " **%+.1f %%** | **%+.1f %%** | **%+.1f %%** |%n", client.prefill(), client.fastestPrefill(),
                client.decode(), client.fastestDecode()));
        b.append(String.format(Locale.ROOT, "| engine overhead (server's timings vs library) | %+.1f %% | %+.1f %% |"
                        + " %+.1f %% | %+.1f %% |%n%n", engine.prefill(), engine.fastestPrefill(), engine.decode(),
                engine.fastestDecode()));
        b.append("Prefill: tokens prefilled over the time to the first token (the client's: request sent to the first"
                + " streamed text). Decode: the tokens after the first over the time from the first to the last."
                + " Overhead: how much longer the server took for the same tokens; in the median columns the median"
                + " of each round's library-server pair (run one right after the other, alternating which first),"
                + " in the fastest columns the fastest server round against the fastest library round.");
        b.append(String.format(Locale.ROOT, " CPU time per round (median): the library's thread %.0f ms; during the"
                        + " server's request its decode thread %.0f ms and the rest of the process (HTTP, pipeline,"
                        + " the bench's client, JIT, GC) %.0f ms.", median(r.rounds(), x -> x.cpu().library()),
                median(r.rounds(), x -> x.cpu().decodeThread()), median(r.rounds(), x -> x.cpu().restOfProcess())));
        int mismatched = (int) r.rounds().stream().filter(x -> x.libraryPromptTokens() != x.serverPromptTokens())
                .count();
        if (mismatched > 0) {
            b.append(String.format(Locale.ROOT, " **Warning:** in %d rounds the server's prompt had another length"
                    + " than the library's (its template or system prompt differs).", mismatched));
        }
        b.append("\n\n| chats at once | decode tokens/s together | per chat (client) | per chat (server's timings)"
                + " | gain over one chat |\n|---:|---:|---:|---:|---:|\n");
        for (ParallelRow p : parallel(r)) {
            b.append(String.format(Locale.ROOT, "| %d | %.2f | %.2f | %.2f | %.2fx |%n", p.chats(), p.aggregate(),
                    p.perChat(), p.serverPerChat(), p.gain()));
        }
        b.append(String.format(Locale.ROOT, "%nEach parallel chat: a prompt of %d tokens, %d generated. Together:"
                        + " every chat's tokens after its first over the time from the first chat's first token to"
                        + " the last chat's last.%n", s.plan().parallelPromptTokens(), s.plan().maxTokens()));
        return b.toString();
    }

    private static String row(String name, Rates rates) {
        return String.format(Locale.ROOT, "| %s | %.1f | %.1f | %.2f | %.2f |%n", name, rates.prefill(),
                rates.bestPrefill(), rates.decode(), rates.bestDecode());
    }

    static ObjectNode json(LlamaBench.Result r) {
        LlamaBench.Setup s = r.setup();
        ObjectNode root = JSON.createObjectNode().put("bench", "llama");
        ObjectNode model = root.putObject("model");
        model.put("id", s.modelId()).put("file", s.file()).put("description", s.description())
                .put("parameters", s.parameters()).put("type", s.quantisation()).put("bytes", s.fileBytes());
        root.put("library", s.library()).put("threads", s.threads()).put("conversations_at_once", s.parallel())
                .put("context", s.contextLength()).put("context_cells", s.contextCells())
                .put("batch", s.batchSize()).put("prompt_tokens", s.plan().promptTokens())
                .put("max_tokens", s.plan().maxTokens()).put("runs", s.plan().runs())
                .put("parallel_runs", s.plan().parallelRuns())
                .put("parallel_prompt_tokens", s.plan().parallelPromptTokens());
        ObjectNode single = root.putObject("single");
        Rates lib = library(r);
        Rates srv = serverTimings(r);
        Rates cli = client(r);
        rates(single.putObject("library"), lib);
        rates(single.putObject("server_timings"), srv);
        rates(single.putObject("server_client_clock"), cli);
        overheads(single.putObject("overhead_percent"), Overhead.of(r.rounds(), LlamaBench.Round::client));
        overheads(single.putObject("engine_overhead_percent"), Overhead.of(r.rounds(), LlamaBench.Round::server));
        single.putObject("cpu_ms_median").put("library", number(median(r.rounds(), x -> x.cpu().library())))
                .put("decode_thread", number(median(r.rounds(), x -> x.cpu().decodeThread())))
                .put("rest_of_process", number(median(r.rounds(), x -> x.cpu().restOfProcess())));
        ArrayNode rounds = single.putArray("rounds");
        for (LlamaBench.Round round : r.rounds()) {
            ObjectNode o = rounds.addObject().put("library_prompt_tokens", round.libraryPromptTokens())
                    .put("server_prompt_tokens", round.serverPromptTokens());
            timing(o.putObject("library"), round.library());
            timing(o.putObject("server_timings"), round.server());
            timing(o.putObject("server_client_clock"), round.client());
            o.putObject("cpu_ms").put("library", number(round.cpu().library()))
                    .put("decode_thread", number(round.cpu().decodeThread()))
                    .put("rest_of_process", number(round.cpu().restOfProcess()));
        }
        ArrayNode parallel = root.putArray("parallel");
        for (ParallelRow p : parallel(r)) {
            parallel.addObject().put("chats", p.chats()).put("decode_tokens_per_s", number(p.aggregate()))
                    .put("per_chat_tokens_per_s", number(p.perChat()))
                    .put("per_chat_server_timings_tokens_per_s", number(p.serverPerChat()))
                    .put("gain", number(p.gain()));
        }
        return root;
    }

    private static void rates(ObjectNode o, Rates rates) {
        o.put("prefill_tokens_per_s", number(rates.prefill())).put("decode_tokens_per_s", number(rates.decode()))
                .put("fastest_prefill_tokens_per_s", number(rates.bestPrefill()))
                .put("fastest_decode_tokens_per_s", number(rates.bestDecode()));
    }

    private static void overheads(ObjectNode o, Overhead overhead) {
        o.put("prefill", number(overhead.prefill())).put("decode", number(overhead.decode()))
                .put("fastest_prefill", number(overhead.fastestPrefill()))
                .put("fastest_decode", number(overhead.fastestDecode()));
    }

    private static void timing(ObjectNode o, Timing t) {
        o.put("prefill_tokens", t.prefillTokens()).put("prefill_ms", number(t.prefillMs()))
                .put("generated", t.generated()).put("decode_ms", number(t.decodeMs()));
    }

    /** Rounded to 0.01; nothing measured (NaN) is null. */
    private static Double number(double value) {
        return Double.isFinite(value) ? Math.round(value * 100) / 100.0 : null;
    }
}
