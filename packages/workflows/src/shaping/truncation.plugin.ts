import type { ToolCallContext, ToolOutcome } from "@needlework/core";
import type { AgentFrameworkPlugin, PluginContext } from "../plugin.js";
import { PLUGIN_TRAITS } from "../plugin.js";
import { markDataRedacted, REDACTED_FLAG } from "./redaction.plugin.js";
import { reviseOutcome, shapingMiddleware } from "./shaping-middleware.js";
import { MIN_MAX_TOKENS, type TruncateResult, type TruncationOptions } from "@needlework/shaping";
import {
  assertTokenizerInstalled,
  createTruncator,
  type ResolvedTruncationOptions,
  resolveTruncationOptions,
  surelyFits,
  truncatePlainText,
} from "@needlework/shaping/internal";

/**
 * The flag a truncated outcome carries in `metadata.flags`.
 *
 * @example
 * ```ts
 * if (outcome.metadata.flags?.includes(RESULT_TRUNCATED_FLAG)) console.log(outcome.metadata.truncation);
 * ```
 */
export const RESULT_TRUNCATED_FLAG = "RESULT_TRUNCATED";

/**
 * The plugin behind `usingTruncation()`, with its resolved options.
 *
 * @example
 * ```ts
 * const plugin: TruncationPlugin = truncationPlugin({ maxTokens: 1000 });
 * plugin.describe(); // "truncation(maxTokens: 1000, encoding: o200k_base, maxListItems: 20, maxMessageTokens: 500)"
 * ```
 */
export interface TruncationPlugin extends AgentFrameworkPlugin {
  readonly name: "truncation";
  readonly options: ResolvedTruncationOptions;
}

/** `@AgentFunction({ maxResultTokens })` when it is a usable budget; a too-small one is raised to the minimum. */
function budgetFor(call: ToolCallContext, fallback: number): number {
  const own = call.tool.options.maxResultTokens;
  if (typeof own !== "number" || !Number.isFinite(own) || own <= 0) return fallback;
  return Math.max(MIN_MAX_TOKENS, Math.floor(own));
}

/**
 * The plugin behind `usingTruncation(options)`: fits each result into a token budget while keeping
 * it valid JSON (see {@link truncateValue}). Register it after `usingToolResultMiddleware()` so it
 * shapes the outcome the model reads; registered inside, it receives raw values and `ToolResult`s,
 * normalizes them to outcomes and shapes those the same way.
 *
 * - `data` is cut to `maxTokens` (or the tool's `@AgentFunction({ maxResultTokens })`); `message`
 *   and `suggestion` each to `maxMessageTokens`.
 * - A cut outcome is returned as a copy with `RESULT_TRUNCATED` in `metadata.flags` and
 *   `metadata.truncation = { originalTokens, keptTokens }` (summed over the parts that were cut).
 * - A result that fits is returned exactly as it came, without a flag. Thrown errors pass through.
 *
 * @example
 * ```ts
 * usingAgentFramework(container).addAgentFunctions(OrderTools)
 *   .usingResilience().usingToolResultMiddleware()
 *   .usingPlugin(truncationPlugin({ maxTokens: 1500 }));
 * ```
 */
export function truncationPlugin(options?: TruncationOptions): TruncationPlugin {
  const resolved = resolveTruncationOptions(options);
  assertTokenizerInstalled(resolved.encoding);
  const truncate = createTruncator(resolved);
  const textBudget = Math.min(resolved.maxMessageTokens, resolved.maxTokens);
  // Parts that certainly fit are not tokenized: they come back unchanged either way.
  // A cut can split a secret (a JWT, a card number) into parts no detector matches any more, so when
  // the pipeline redacts, what is about to be cut is redacted first, while its secrets are whole, and
  // what is kept is redacted before it is counted. The redaction plugins are then told the kept data
  // is done, so each result is redacted once, on what is kept (see createTruncator).
  const createShape = (
    scrub: (<T>(value: T) => T) | undefined,
    redactors: readonly object[],
    offloadBytes: number | undefined,
  ) => {
    // Data a plugin outside will store as an artifact (usingArtifacts) is left whole for it: it
    // shapes its own preview, and the rest stays readable page by page.
    const offloaded = (data: unknown): boolean =>
      offloadBytes !== undefined &&
      !surelyFits(data, offloadBytes) &&
      Buffer.byteLength(JSON.stringify(data) ?? "", "utf8") > offloadBytes;
    let scrubbed = false;
    const clean = <T>(value: T): T => {
      if (scrub === undefined) return value;
      const out = scrub(value);
      if (out !== value) scrubbed = true;
      return out;
    };
    const text = (value: string | undefined): TruncateResult<string> | undefined =>
      value === undefined || surelyFits(value, textBudget)
        ? undefined
        : truncatePlainText(clean(value), textBudget, resolved.encoding);

    return (outcome: ToolOutcome, call: ToolCallContext): ToolOutcome | undefined => {
      scrubbed = false;
      const budget = budgetFor(call, resolved.maxTokens);
      const data =
        outcome.data === undefined || surelyFits(outcome.data, budget) || offloaded(outcome.data)
          ? undefined
          : truncate(outcome.data, budget, scrub && clean);
      const message = text(outcome.message);
      const suggestion = text(outcome.suggestion);
      const shaped = shapeWith(outcome, data, message, suggestion);
      if (shaped === undefined) return undefined;
      const final = scrubbed ? reviseOutcome(shaped, REDACTED_FLAG, {}) : shaped;
      if (data?.truncated && redactors.length > 0) markDataRedacted(final, redactors);
      return final;
    };
  };

  const shapeWith = (
    outcome: ToolOutcome,
    data: TruncateResult<unknown> | undefined,
    message: TruncateResult<string> | undefined,
    suggestion: TruncateResult<string> | undefined,
  ): ToolOutcome | undefined => {
    const cut = [data, message, suggestion].filter((r): r is TruncateResult<unknown> => r?.truncated === true);
    if (cut.length === 0) return undefined;
    const truncation = {
      originalTokens: cut.reduce((sum, r) => sum + r.originalTokens, 0),
      keptTokens: cut.reduce((sum, r) => sum + r.keptTokens, 0),
    };
    return reviseOutcome(outcome, RESULT_TRUNCATED_FLAG, {
      ...(data?.truncated ? { data: data.value } : {}),
      ...(message?.truncated ? { message: message.value } : {}),
      ...(suggestion?.truncated ? { suggestion: suggestion.value } : {}),
      extraMetadata: { truncation },
    });
  };

  return {
    name: "truncation",
    traits: [PLUGIN_TRAITS.shapesValues],
    options: resolved,
    describe: () =>
      `truncation(maxTokens: ${resolved.maxTokens}, encoding: ${resolved.encoding}, maxListItems: ${resolved.maxListItems}, maxMessageTokens: ${resolved.maxMessageTokens})`,
    createMiddleware: (context?: PluginContext) => {
      const redactors = (context?.plugins ?? []).filter((p) => typeof p.redact === "function");
      const scrub = <T>(value: T): T => redactors.reduce<unknown>((v, p) => p.redact!(v), value) as T;
      const position = context?.position ?? -1;
      const offloading = (context?.plugins ?? []).find((p, i) => i > position && typeof p.offloadBytes === "number");
      return shapingMiddleware(
        createShape(redactors.length > 0 ? scrub : undefined, redactors, offloading?.offloadBytes),
      );
    },
  };
}
