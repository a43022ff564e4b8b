package io.rkllm.server.download;

import java.util.List;
import java.util.Locale;
import java.util.Optional;

/** A pull's name and the repository's listing to the files it will write (GGUF or RKLLM, chosen by the listing). */
final class PullPlanner {
    private PullPlanner() {
    }

    static PullPlan plan(ModelName name, RepoListing listing, Board board) throws PullException {
        if (name.file().isPresent()) {
            String wanted = name.file().get();
            HubFile file = listing.files().stream().filter(f -> f.path().equals(wanted)).findFirst()
                    .or(() -> listing.files().stream().filter(f -> f.path().equalsIgnoreCase(wanted)).findFirst())
                    .orElseThrow(() -> new PullException(PullException.Kind.NOT_FOUND, "no file " + wanted + " in "
                            + listing.repo() + modelFiles(listing)));
            String lower = file.name().toLowerCase(Locale.ROOT);
            if (lower.endsWith(".gguf") && GgufChoice.isModel(file)) {
                return GgufChoice.planFile(file, listing);
            }
            if (lower.endsWith(".rkllm")) {
                return RkllmChoice.planFile(file, listing, board);
            }
            throw new PullException(PullException.Kind.INVALID, file.path() + " is not a model file (the server runs"
                    + " .gguf and .rkllm models)" + modelFiles(listing));
        }
        boolean gguf = GgufChoice.has(listing);
        boolean rkllm = RkllmChoice.has(listing);
        if (!gguf && !rkllm) {
            throw new PullException(PullException.Kind.NOT_FOUND, listing.repo() + " has no .gguf or .rkllm model"
                    + " file: the server runs GGUF models (llama.cpp) and RKLLM conversions (the NPU); look for a"
                    + " repository of those (often named ...-GGUF or ...-rk3588)");
        }
        if (gguf) {
            Optional<PullPlan> plan = GgufChoice.plan(name, listing);
            if (plan.isPresent()) {
                return plan.get();
            }
        }
        if (rkllm) {
            Optional<PullPlan> plan = RkllmChoice.plan(name, listing, board);
            if (plan.isPresent()) {
                return plan.get();
            }
        }
        String tag = name.tag().orElse("");
        if (gguf) {
            List<String> quants = GgufChoice.quantisations(listing);
            throw new PullException(PullException.Kind.NOT_FOUND, listing.repo() + " has no " + tag
                    + " quantisation; it has " + String.join(", ", quants) + " (pull " + listing.repo() + ":"
                    + (quants.isEmpty() ? "QUANT" : quants.getFirst()) + ")");
        }
        throw new PullException(PullException.Kind.NOT_FOUND, "no .rkllm file of " + listing.repo() + " matches ':"
                + tag + "'" + modelFiles(listing));
    }

    private static String modelFiles(RepoListing listing) {
        List<String> models = listing.files().stream().map(HubFile::path)
                .filter(p -> p.toLowerCase(Locale.ROOT).endsWith(".gguf") || p.toLowerCase(Locale.ROOT)
                        .endsWith(".rkllm")).limit(20).toList();
        return models.isEmpty() ? " (it has no .gguf or .rkllm file)" : "; its model files: " + String.join(", ", models);
    }
}
