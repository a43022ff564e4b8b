/**
 * Model discovery: finds the model files under the models directory (each engine's {@link
 * io.rkllm.server.models.ModelFormat} says which and reads them: {@link io.rkllm.server.models.ModelFacts}), gives
 * each a URL-safe id, reads the optional {@code model.yaml} sidecar, fills the gaps from the file and folder names
 * and a per-family profile table, and resolves the names clients send (ids, aliases, unique prefixes).
 *
 * <p>Entry points: {@link io.rkllm.server.models.ModelDiscovery#discover} returns a
 * {@link io.rkllm.server.models.DiscoveryResult} (models, warnings, errors as
 * {@link io.rkllm.server.models.Problem}s, so the caller decides between "skip the broken model" and
 * "exit 2"), and {@link io.rkllm.server.models.ModelCatalog} resolves names. This package knows no engine: a
 * {@code .rkllm} file is opaque to its format (only its size and modification time are read), a {@code .gguf}
 * file's header is read by llama.cpp's. The user-facing description is docs/models.md.
 */
package io.rkllm.server.models;
