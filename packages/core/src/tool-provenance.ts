import type { AgentFunctionOptions } from "./agent-function.options.js";
import type { ToolOutcome } from "./tool-outcome.js";

/**
 * The flag an outcome carries in `metadata.flags` when its content came from a tool declared
 * `reads: "untrusted"` (or a middleware marked it): text a third party wrote.
 *
 * @example
 * ```ts
 * if (outcome.metadata.flags?.includes(UNTRUSTED_CONTENT)) console.warn("third-party text");
 * ```
 */
export const UNTRUSTED_CONTENT = "UNTRUSTED_CONTENT";

/**
 * Where an outcome's content came from: `"untrusted"` for text a third party wrote. Outcomes of
 * trusted tools carry no `provenance` at all.
 *
 * @example
 * ```ts
 * const provenance: ToolProvenance = isUntrustedOutcome(outcome) ? "untrusted" : "trusted";
 * ```
 */
export type ToolProvenance = "trusted" | "untrusted";

/**
 * What a tool changes, from its declaration: `effects` when given, `"none"` for `readOnly: true`,
 * else `"external"` (an undeclared tool may move money or send mail).
 *
 * @example
 * ```ts
 * toolEffects({ readOnly: true }); // "none"
 * toolEffects({}); // "external"
 * ```
 */
export function toolEffects(
  options: Pick<AgentFunctionOptions, "effects" | "readOnly"> | undefined,
): "none" | "internal" | "external" {
  if (options?.effects !== undefined) return options.effects;
  return options?.readOnly === true ? "none" : "external";
}

/**
 * Marks an outcome as untrusted content: `metadata.provenance = "untrusted"` and the
 * {@link UNTRUSTED_CONTENT} flag. The invoker does this for every outcome of a tool declared
 * `reads: "untrusted"`; a middleware may do it for one result of a trusted tool (a fetch outside
 * an allow-list). Nothing unmarks an outcome.
 *
 * @example
 * ```ts
 * const fetchPage: ToolMiddleware = async (call, next) => {
 *   const outcome = (await next()) as ToolOutcome;
 *   return allowed(call.arguments.url) ? outcome : markUntrusted(outcome);
 * };
 * ```
 */
export function markUntrusted(outcome: ToolOutcome): ToolOutcome {
  const metadata = outcome.metadata;
  metadata.provenance = "untrusted";
  const flags = metadata.flags ?? (metadata.flags = []);
  if (!flags.includes(UNTRUSTED_CONTENT)) flags.push(UNTRUSTED_CONTENT);
  return outcome;
}

/**
 * True when an outcome (live, or as a journal or a checkpoint keeps it) carries the untrusted
 * mark: `metadata.provenance === "untrusted"` or the {@link UNTRUSTED_CONTENT} flag.
 *
 * @example
 * ```ts
 * if (isUntrustedOutcome(outcome)) runSawUntrustedContent = true;
 * ```
 */
export function isUntrustedOutcome(outcome: { readonly metadata?: unknown } | undefined): boolean {
  const metadata = outcome?.metadata as { provenance?: unknown; flags?: unknown } | undefined;
  if (metadata === undefined || metadata === null) return false;
  if (metadata.provenance === "untrusted") return true;
  return Array.isArray(metadata.flags) && metadata.flags.includes(UNTRUSTED_CONTENT);
}

/**
 * The `items` key an adapter sets, to {@link APPROVED_BY_PERSON}, when a person approved this one
 * call (MCP elicitation): the injection policy's middleware then lets it run. Part of `@needlework/core/kit`.
 */
export const APPROVED_ITEM = "needlework.approvedByPerson";

/** The value of {@link APPROVED_ITEM}: a module symbol, so a value from JSON cannot pass for it. Part of `@needlework/core/kit`. */
export const APPROVED_BY_PERSON: unique symbol = Symbol("needlework.approved-by-person");
