import type { ToolOutcome, ToolOutcomeMetadata } from "@needlework/core";
import type { AgentFrameworkPlugin } from "../plugin.js";
import { PLUGIN_TRAITS } from "../plugin.js";
import { createRedactor, type RedactionOptions } from "@needlework/shaping";
import { type ResolvedRedactionOptions, resolveRedactionOptions } from "@needlework/shaping/internal";
import { type OutcomeChanges, reviseOutcome, shapingMiddleware } from "./shaping-middleware.js";

/**
 * The flag a redacted outcome carries in `metadata.flags`.
 *
 * @example
 * ```ts
 * if (outcome.metadata.flags?.includes(REDACTED_FLAG)) metrics.increment("tool.redacted");
 * ```
 */
export const REDACTED_FLAG = "REDACTED";

/**
 * The plugin behind `usingRedaction()`; `redact(value)` scrubs values that leave by other ways.
 *
 * @example
 * ```ts
 * const plugin: RedactionPlugin = redactionPlugin();
 * deadLetters.append(plugin.redact(entry) as DeadLetterEntry);
 * ```
 */
export interface RedactionPlugin extends AgentFrameworkPlugin {
  readonly name: "redaction";
  readonly options: ResolvedRedactionOptions;
  /** Scrubs any value (dead-letter entries, diagnostics records, trace attributes); see `Redactor.redactValue`. */
  redact(value: unknown): unknown;
}

/**
 * Outcomes whose `data` was already redacted by these plugins: truncation redacts what it keeps
 * (before counting it, so the budget holds for what the model reads), and the plugin then leaves
 * that data alone, so a result is redacted once. A WeakMap: the mark goes with the outcome.
 */
const dataRedactedBy = new WeakMap<ToolOutcome, readonly object[]>();

/**
 * Records that every plugin in `by` has redacted the `data` of `outcome`.
 * @internal
 */
export function markDataRedacted(outcome: ToolOutcome, by: readonly object[]): void {
  dataRedactedBy.set(outcome, by);
}

// Set by the invoker and by truncation; the rest of metadata comes from plugins and is scrubbed.
const OWN_METADATA = new Set(["tool", "callId", "attempts", "latencyMs", "idempotencyKey", "flags", "truncation"]);

/**
 * The plugin behind `usingRedaction(options)`: scrubs secrets and personal data from everything the
 * model reads of an outcome: `message`, `suggestion`, `data` (deep, object keys included, whole
 * values of secret-named fields) and metadata added by plugins. See {@link createRedactor} for the
 * detectors. Register it last among the shaping plugins so nothing escapes it; registered inside
 * the tool-result middleware it receives raw values and `ToolResult`s, normalizes them to outcomes
 * and scrubs those the same way.
 *
 * A scrubbed outcome is returned as a copy with `REDACTED` in `metadata.flags`; a result with
 * nothing to scrub is returned exactly as it came. Thrown errors pass through.
 *
 * @example
 * ```ts
 * const redaction = redactionPlugin({ allow: ["support@example.com"] });
 * usingAgentFramework(container).addAgentFunctions(CrmTools).usingToolResultMiddleware().usingPlugin(redaction);
 * redaction.redact({ note: "call +1 415 555 2671" }); // { note: "call [REDACTED:phone]" }
 * ```
 */
export function redactionPlugin(options?: RedactionOptions): RedactionPlugin {
  const resolved = resolveRedactionOptions(options);
  const { redactText, redactValue } = createRedactor(resolved);

  const scrubMetadata = (metadata: ToolOutcomeMetadata): ToolOutcomeMetadata | undefined => {
    let out: ToolOutcomeMetadata | undefined;
    for (const key of Object.keys(metadata)) {
      if (OWN_METADATA.has(key)) continue;
      const value = metadata[key];
      const scrubbed = redactValue(value);
      if (!Object.is(scrubbed, value)) {
        out ??= { ...metadata };
        out[key] = scrubbed;
      }
    }
    return out;
  };

  const shape = (outcome: ToolOutcome): ToolOutcome | undefined => {
    const dataDone = dataRedactedBy.get(outcome)?.includes(plugin) === true;
    const changes: { -readonly [K in keyof OutcomeChanges]: OutcomeChanges[K] } = {};
    if (outcome.message !== undefined) {
      const message = redactText(outcome.message);
      if (message !== outcome.message) changes.message = message;
    }
    if (outcome.suggestion !== undefined) {
      const suggestion = redactText(outcome.suggestion);
      if (suggestion !== outcome.suggestion) changes.suggestion = suggestion;
    }
    if (outcome.data !== undefined && !dataDone) {
      const data = redactValue(outcome.data);
      if (!Object.is(data, outcome.data)) changes.data = data;
    }
    const metadata = scrubMetadata(outcome.metadata);
    if (metadata !== undefined) changes.metadata = metadata;
    return Object.keys(changes).length === 0 ? undefined : reviseOutcome(outcome, REDACTED_FLAG, changes);
  };

  const detectors = [...resolved.detectors, ...resolved.patterns.map((p) => p.name)];
  const plugin: RedactionPlugin = {
    name: "redaction",
    traits: [PLUGIN_TRAITS.shapesValues],
    options: resolved,
    redact: redactValue,
    describe: () =>
      `redaction(${detectors.length} detectors: ${detectors.join(", ")}; field names ${resolved.redactFieldNames ? "on" : "off"}; ${resolved.allow.length} allowed)`,
    createMiddleware: () => shapingMiddleware(shape),
  };
  return plugin;
}
