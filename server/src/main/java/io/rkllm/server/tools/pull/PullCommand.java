package io.rkllm.server.tools.pull;

import io.rkllm.server.download.Board;
import io.rkllm.server.download.DiskSpace;
import io.rkllm.server.download.Hub;
import io.rkllm.server.download.HubFile;
import io.rkllm.server.download.ModelsDirectory;
import io.rkllm.server.download.PullException;
import io.rkllm.server.download.PullPlan;
import io.rkllm.server.download.PullProgress;
import io.rkllm.server.download.PullResult;
import io.rkllm.server.download.Puller;
import io.rkllm.server.download.Sizes;
import io.rkllm.server.models.DiscoveryResult;
import io.rkllm.server.models.ModelDescriptor;
import io.rkllm.server.models.ModelDiscovery;
import io.rkllm.server.models.Problem;
import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;

/**
 * {@code rkllm-server pull MODEL [--insecure] [--models DIR]}: a model from the Hub ({@code hf.co/OWNER/REPO:QUANT},
 * {@code OWNER/REPO}) or an Ollama registry ({@code qwen3:4b}, {@code NAMESPACE/MODEL:TAG},
 * {@code HOST/NAMESPACE/MODEL:TAG}) into the models directory, with a progress bar
 * on a terminal (plain lines otherwise), then what the server will serve it as. A running server picks the model up
 * without a restart. Exit code 0, 1 when the pull failed, 2 for a name that is no model's.
 */
public final class PullCommand {
    static final int OK = 0;
    static final int FAILED = 1;
    static final int USAGE = 2;

    private final Map<String, String> environment;
    private final PrintStream out;
    private final PrintStream err;
    private final boolean terminal;
    private final String version;

    /**
     * @param terminal whether {@code out} is a terminal (a bar redrawn in place) or not (plain progress lines)
     */
    public PullCommand(Map<String, String> environment, PrintStream out, PrintStream err, boolean terminal,
                       String version) {
        this.environment = environment;
        this.out = out;
        this.err = err;
        this.terminal = terminal;
        this.version = version;
    }

    /**
     * Pulls {@code model} into {@code modelsDir} for {@code board}; {@code discovery} says how it would be served;
     * {@code insecure} lets a registry named in the model's name be asked over plain http ({@code --insecure}).
     */
    public int run(String model, boolean insecure, Path modelsDir, Board board, ModelDiscovery discovery) {
        PullResult result;
        ModelsDirectory directory = new ModelsDirectory(modelsDir, DiskSpace.SYSTEM, discovery.endings());
        try {
            Hub hub = Hub.fromEnvironment(environment, version);
            Puller puller = new Puller(() -> hub, directory, board);
            result = puller.pull(model, insecure, narrated(modelsDir));
        } catch (PullException e) {
            out.flush();
            err.println("rkllm-server pull: " + e.getMessage());
            return e.kind() == PullException.Kind.INVALID ? USAGE : FAILED;
        }
        out.println(result.upToDate() ? "up to date: " + result.folder() + " (nothing downloaded)"
                : "pulled " + Sizes.of(result.downloaded()) + " into " + result.folder());
        DiscoveryResult found = discovery.discover(modelsDir);
        Path file = result.model().toAbsolutePath().normalize();
        Optional<ModelDescriptor> served = found.models().stream()
                .filter(m -> m.file().toAbsolutePath().normalize().equals(file)).findFirst();
        if (served.isPresent()) {
            out.println("served as model '" + served.get().id() + "' (a running server picks it up without a restart)");
            return OK;
        }
        for (Problem p : found.errors()) {
            if (p.path().toAbsolutePath().normalize().startsWith(result.folder())) {
                err.println("error: " + p);
            }
        }
        if (result.upToDate() || !found.refusedFile(file)) {
            // its model.yaml or what lies beside it is at fault, not the download: the user's to mend, kept
            err.println("rkllm-server pull: " + file + " is there but not served (see above)");
            return FAILED;
        }
        // as Ollama's pull route does: nothing unusable stays behind to be taken for a model, or found up to date
        String removed;
        try {
            directory.delete(file);
            removed = "; it was removed";
        } catch (PullException e) {
            removed = "; removing it failed: " + e.getMessage();
        }
        err.println("rkllm-server pull: " + file + " was downloaded but is not a model this server can serve (see"
                + " above)" + removed);
        return FAILED;
    }

    /** The bar or the lines, with what is pulled from where said first. */
    private PullProgress narrated(Path modelsDir) {
        PullProgress bytes = terminal ? new ProgressBar(out, System::nanoTime) : new ProgressLines(out, System::nanoTime);
        return new PullProgress() {
            @Override
            public void listing(String repo, String source) {
                out.println("pulling " + repo + " from " + source);
            }

            @Override
            public void planned(PullPlan plan) {
                out.println("  " + plan.files().size() + (plan.files().size() == 1 ? " file, " : " files, ")
                        + Sizes.of(plan.totalBytes()) + ", into " + modelsDir.toAbsolutePath().normalize()
                        .resolve(plan.folder()));
            }

            @Override
            public void transfer(HubFile file, long completed) throws PullException {
                bytes.transfer(file, completed);
            }

            @Override
            public void stopped(HubFile file, long completed, String why, Duration wait) throws PullException {
                bytes.stopped(file, completed, why, wait);
            }

            @Override
            public void verifying(HubFile file) throws PullException {
                bytes.verifying(file);
            }
        };
    }
}
