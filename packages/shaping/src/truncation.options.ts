import { z } from "zod";
import { integerAtLeast, stringOrRegExp } from "@needlework/core/kit";
import { parseOptions, type SchemaMatches } from "@needlework/core/kit";
import { TOKEN_ENCODINGS, type TokenEncoding } from "./tokenizer.js";

/**
 * Options of {@link truncateValue} and `usingTruncation()`.
 *
 * @example
 * ```ts
 * usingAgentFramework(container).addAgentFunctions(OrderTools)
 *   .usingResilience().usingToolResultMiddleware()
 *   .usingTruncation({ maxTokens: 1500, encoding: "cl100k_base", maxListItems: 10 });
 * ```
 */
export interface TruncationOptions {
  /** Token budget of a result's `data` (the compact JSON the model reads). Default 2000; at least 16. `@AgentFunction({ maxResultTokens })` overrides it per tool. */
  readonly maxTokens?: number;
  /** The encoding tokens are counted in. Default `o200k_base`. */
  readonly encoding?: TokenEncoding;
  /** When a result is over budget, lists keep at most this many items (fewer if still over). Default 20. */
  readonly maxListItems?: number;
  /** Token budget of each of an outcome's `message` and `suggestion` (plugin only). Default 500. */
  readonly maxMessageTokens?: number;
  /** Keys whose entries are kept before others, in addition to the default `id`, `*_id`, `*Id`, `error_code`, `status`, `message`, ... */
  readonly preserveKeys?: readonly (string | RegExp)[];
}

/**
 * The options of {@link truncateValue} once defaults are applied.
 *
 * @example
 * ```ts
 * truncationPlugin({ maxTokens: 1000 }).options.maxListItems; // 20
 * ```
 */
export interface ResolvedTruncationOptions {
  readonly maxTokens: number;
  readonly encoding: TokenEncoding;
  readonly maxListItems: number;
  readonly maxMessageTokens: number;
  readonly preserveKeys: readonly (string | RegExp)[];
}

/**
 * The smallest accepted token budget: below it not even a truncation marker fits. A tool's
 * `maxResultTokens` below it is raised to it.
 *
 * @example
 * ```ts
 * truncateValue(rows, { maxTokens: MIN_MAX_TOKENS });
 * ```
 */
export const MIN_MAX_TOKENS = 16;

/**
 * The defaults of {@link TruncationOptions}.
 *
 * @example
 * ```ts
 * DEFAULT_TRUNCATION_OPTIONS.maxTokens; // 2000
 * ```
 */
export const DEFAULT_TRUNCATION_OPTIONS: ResolvedTruncationOptions = Object.freeze({
  maxTokens: 2000,
  encoding: "o200k_base",
  maxListItems: 20,
  maxMessageTokens: 500,
  preserveKeys: Object.freeze([]) as readonly (string | RegExp)[],
});

const truncationOptionsSchema = z.strictObject(
  {
    maxTokens: integerAtLeast(MIN_MAX_TOKENS).optional(),
    encoding: z.enum(TOKEN_ENCODINGS, `must be one of ${TOKEN_ENCODINGS.join(", ")}`).optional(),
    maxListItems: integerAtLeast(0).optional(),
    maxMessageTokens: integerAtLeast(MIN_MAX_TOKENS).optional(),
    preserveKeys: z.array(stringOrRegExp, "must be an array of strings and regular expressions").readonly().optional(),
  },
  "must be an object",
);

true satisfies SchemaMatches<typeof truncationOptionsSchema, TruncationOptions>;

/**
 * Validates options and applies the defaults; throws an `InvalidOptionError` naming the bad option.
 * `usingTruncation()` calls it once, when the plugin is created.
 * @internal
 */
export function resolveTruncationOptions(options: TruncationOptions = {}): ResolvedTruncationOptions {
  const o = parseOptions("usingTruncation", truncationOptionsSchema, options);
  const d = DEFAULT_TRUNCATION_OPTIONS;
  return {
    maxTokens: o.maxTokens ?? d.maxTokens,
    encoding: o.encoding ?? d.encoding,
    maxListItems: o.maxListItems ?? d.maxListItems,
    maxMessageTokens: o.maxMessageTokens ?? d.maxMessageTokens,
    preserveKeys: o.preserveKeys ?? d.preserveKeys,
  };
}
