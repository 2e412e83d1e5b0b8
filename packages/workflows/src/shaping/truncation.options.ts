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

const KNOWN = new Set(["maxTokens", "encoding", "maxListItems", "maxMessageTokens", "preserveKeys"]);

function checkInteger(name: string, value: unknown, min: number): void {
  if (typeof value !== "number" || !Number.isInteger(value) || value < min) {
    throw new TypeError(`usingTruncation: ${name} must be an integer >= ${min}, not ${String(value)}.`);
  }
}

/**
 * Validates options and applies the defaults; throws a `TypeError` naming the bad option.
 * @internal
 */
export function resolveTruncationOptions(options: TruncationOptions = {}): ResolvedTruncationOptions {
  for (const key of Object.keys(options)) {
    if (!KNOWN.has(key))
      throw new TypeError(`usingTruncation: unknown option '${key}' (known: ${[...KNOWN].join(", ")}).`);
  }
  const resolved: ResolvedTruncationOptions = {
    maxTokens: options.maxTokens ?? DEFAULT_TRUNCATION_OPTIONS.maxTokens,
    encoding: options.encoding ?? DEFAULT_TRUNCATION_OPTIONS.encoding,
    maxListItems: options.maxListItems ?? DEFAULT_TRUNCATION_OPTIONS.maxListItems,
    maxMessageTokens: options.maxMessageTokens ?? DEFAULT_TRUNCATION_OPTIONS.maxMessageTokens,
    preserveKeys: options.preserveKeys ?? DEFAULT_TRUNCATION_OPTIONS.preserveKeys,
  };
  checkInteger("maxTokens", resolved.maxTokens, MIN_MAX_TOKENS);
  checkInteger("maxListItems", resolved.maxListItems, 0);
  checkInteger("maxMessageTokens", resolved.maxMessageTokens, MIN_MAX_TOKENS);
  if (!TOKEN_ENCODINGS.includes(resolved.encoding)) {
    throw new TypeError(
      `usingTruncation: encoding must be one of ${TOKEN_ENCODINGS.join(", ")}, not ${JSON.stringify(resolved.encoding)}.`,
    );
  }
  if (
    !Array.isArray(resolved.preserveKeys) ||
    !resolved.preserveKeys.every((k) => typeof k === "string" || k instanceof RegExp)
  ) {
    throw new TypeError("usingTruncation: preserveKeys must be an array of strings and regular expressions.");
  }
  return resolved;
}
