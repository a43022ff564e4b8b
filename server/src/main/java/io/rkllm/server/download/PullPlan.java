package io.rkllm.server.download;

import java.util.List;
import java.util.Optional;

/**
 * What a pull will write: the files of one model, into one folder of the models directory that discovery reads as
 * one model (its id: the folder's name).
 *
 * @param format  which engine runs it
 * @param folder  the folder's name in the models directory: the model file's name without its extension (and
 *                without the part number of a split GGUF model)
 * @param primary the model file (the first part of a split model)
 * @param files   every file to fetch, the model file first: the other parts of a split model, a vision model's image
 *                encoder, the repository's own {@code model.yaml}
 * @param sidecar a {@code model.yaml} to write beside them, when the file and folder names would not tell discovery
 *                what the repository does (the context length its name states)
 */
public record PullPlan(Format format, String folder, HubFile primary, List<HubFile> files, Optional<String> sidecar) {

    /** The two kinds of model files the server runs. */
    public enum Format {
        GGUF(".gguf"), RKLLM(".rkllm");

        private final String extension;

        Format(String extension) {
            this.extension = extension;
        }

        public String extension() {
            return extension;
        }
    }

    public PullPlan {
        files = List.copyOf(files);
    }

    /** Bytes of every file. */
    public long totalBytes() {
        return files.stream().mapToLong(HubFile::size).sum();
    }
}
