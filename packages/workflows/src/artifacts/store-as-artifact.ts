import { type ToolOutcome, type ToolOutcomeStyle } from "@needlework/core";
import type { ArtifactStore } from "@needlework/durable";
import { countTokens, type TokenEncoding } from "@needlework/shaping";
import { assertTokenizerInstalled, createTruncator, resolveTruncationOptions } from "@needlework/shaping/internal";
import { offloadOutcome } from "./artifact-offload.js";
import { resolveArtifactsOptions } from "./artifacts.options.js";
import { READ_ARTIFACT_TOOL } from "./read-artifact.tool.js";

/**
 * Options of {@link storeAsArtifact}: `usingArtifacts()`'s, plus the run and how the outcome is
 * rendered.
 *
 * @example
 * ```ts
 * const options: StoreAsArtifactOptions = { store, runId: "run_1", offloadBytes: 256 * 1024 };
 * ```
 */
export interface StoreAsArtifactOptions {
  readonly store: ArtifactStore;
  /** The run the artifact belongs to (the call's `runId`). */
  readonly runId: string;
  /** Store the data when its JSON passes this many bytes. Default 65 536. */
  readonly offloadBytes?: number;
  /** The budget of the preview's envelope. Default 500. */
  readonly previewTokens?: number;
  /** How the envelope is rendered (the result middleware's style). Default `envelope`. */
  readonly style?: ToolOutcomeStyle;
  /** The encoding tokens are counted in. Default `o200k_base`. */
  readonly encoding?: TokenEncoding;
}

/**
 * Stores an outcome's data as an artifact when its JSON passes `offloadBytes`, and returns the
 * outcome with the preview in `data` and the reference in `artifact` (the outcome itself when it is
 * small, or already refers to one). What `usingArtifacts()` does to each call, for code that holds
 * an outcome outside the pipeline: a durable engine's step whose result would pass the engine's
 * payload limit records the reference, never the bytes. Redact the data before, as the pipeline does.
 *
 * @example
 * ```ts
 * const outcome = await factory.tools.invoke(call, { runId });
 * const small = await storeAsArtifact(outcome, { store: pg.artifacts, runId, offloadBytes: 256 * 1024 });
 * ```
 */
export async function storeAsArtifact(outcome: ToolOutcome, options: StoreAsArtifactOptions): Promise<ToolOutcome> {
  const { store, offloadBytes, previewTokens } = resolveArtifactsOptions({
    store: options.store,
    ...(options.offloadBytes === undefined ? {} : { offloadBytes: options.offloadBytes }),
    ...(options.previewTokens === undefined ? {} : { previewTokens: options.previewTokens }),
  });
  const encoding = options.encoding ?? "o200k_base";
  assertTokenizerInstalled(encoding);
  const truncate = createTruncator(resolveTruncationOptions({ encoding }));
  const metadata = outcome.metadata;
  const stored = await offloadOutcome(
    outcome,
    {
      name: metadata.tool,
      runId: options.runId,
      callId: metadata.callId,
      idempotencyKey: metadata.idempotencyKey ?? `${options.runId}:${metadata.callId}`,
      attempt: metadata.attempts,
      untrusted: false,
    },
    {
      store,
      offloadBytes,
      previewTokens,
      measure: { count: (text) => countTokens(text, encoding), cut: (value, max) => truncate(value, max).value },
      redact: undefined,
      style: () => options.style ?? "envelope",
      readTool: READ_ARTIFACT_TOOL,
    },
  );
  return stored ?? outcome;
}
