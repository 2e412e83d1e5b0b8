import type { ArtifactStore } from "@needlework/durable";
import { integerAtLeast, parseOptions, type SchemaMatches } from "@needlework/core/kit";
import { z } from "zod";

/**
 * Options of `usingArtifacts(options)`.
 *
 * @example
 * ```ts
 * const options: ArtifactsOptions = { store: new InMemoryArtifactStore(), offloadBytes: 32_768 };
 * ```
 */
export interface ArtifactsOptions {
  /** Where results are stored: `new InMemoryArtifactStore()`, `new FileArtifactStore(dir)`, a `PostgresStore`'s `artifacts`, or your own. */
  readonly store: ArtifactStore;
  /** A result whose JSON passes this many bytes is stored, and the model reads a preview. Default 65 536 (64 KB); at least 1 024. */
  readonly offloadBytes?: number;
  /**
   * The most tokens the model reads of a stored result at first: its envelope (the preview in
   * `data`, the reference and its schema, the metadata). Default 500; at least 100.
   */
  readonly previewTokens?: number;
  /**
   * The most tokens of each `read_artifact` page (its envelope included). Default: the budget of
   * the factory's `usingTruncation()` (`maxTokens`), else 2 000; at least 100.
   */
  readonly pageTokens?: number;
}

/**
 * The options of `usingArtifacts()` once defaults are applied (`artifactsPlugin(options).options`).
 *
 * @example
 * ```ts
 * artifactsPlugin({ store }).options.offloadBytes; // 65536
 * ```
 * @internal
 */
export interface ResolvedArtifactsOptions {
  readonly store: ArtifactStore;
  readonly offloadBytes: number;
  readonly previewTokens: number;
  /** `undefined`: the truncation plugin's budget, else 2 000. */
  readonly pageTokens: number | undefined;
}

/**
 * The default of `usingArtifacts({ offloadBytes })`: 64 KB.
 *
 * @example
 * ```ts
 * usingArtifacts({ store, offloadBytes: DEFAULT_OFFLOAD_BYTES / 2 });
 * ```
 */
export const DEFAULT_OFFLOAD_BYTES = 65_536;
const DEFAULT_PREVIEW_TOKENS = 500;

const storeSchema = z.custom<ArtifactStore>((value) => {
  const store = value as Partial<Record<keyof ArtifactStore, unknown>> | null;
  return (
    typeof store?.put === "function" &&
    typeof store.get === "function" &&
    typeof store.list === "function" &&
    typeof store.deleteRun === "function"
  );
}, "must be an ArtifactStore ({ put, get, list, deleteRun }): new InMemoryArtifactStore(), new FileArtifactStore(directory) or a PostgresStore's artifacts");

const optionsSchema = z.strictObject(
  {
    store: storeSchema,
    offloadBytes: integerAtLeast(1024).optional(),
    previewTokens: integerAtLeast(100).optional(),
    pageTokens: integerAtLeast(100).optional(),
  },
  "must be an object: { store }",
);

true satisfies SchemaMatches<typeof optionsSchema, ArtifactsOptions>;

/** Validates options and applies the defaults; throws an `InvalidOptionError` naming the bad option. @internal */
export function resolveArtifactsOptions(options: ArtifactsOptions): ResolvedArtifactsOptions {
  const o = parseOptions("usingArtifacts", optionsSchema, options);
  return {
    store: o.store,
    offloadBytes: o.offloadBytes ?? DEFAULT_OFFLOAD_BYTES,
    previewTokens: o.previewTokens ?? DEFAULT_PREVIEW_TOKENS,
    pageTokens: o.pageTokens,
  };
}
