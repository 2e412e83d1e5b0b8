import { safeJsonStringify, toJsonSafe } from "./json-safe.js";
import { isJsonSnapshot, type ToolOutcome } from "./tool-outcome.js";

/** How an outcome is rendered for the model. */
export type ToolOutcomeStyle = "envelope" | "needlr";

/** Options of {@link formatToolOutcome}. */
export interface FormatToolOutcomeOptions {
  /**
   * `envelope` (default): `{ status, error_code, retriable, message, suggestion, data, metadata }`
   * with snake_case keys. `needlr`: the payload on success, `{ "error": { message, suggestion } }`
   * on failure, as Needlr's tool-result middleware renders it.
   */
  readonly style?: ToolOutcomeStyle;
  /** Leave `metadata` out of the envelope (smaller prompts). Default `false`. */
  readonly omitMetadata?: boolean;
}

// Metadata keys are few and recur on every call (tool, callId, attempts, ...): converted once each.
// Bounded, so keys a middleware makes up per call cannot grow it without limit.
const snakeKeys = new Map<string, string>();
const snake = (key: string): string => {
  let converted = snakeKeys.get(key);
  if (converted === undefined) {
    converted = key.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
    if (snakeKeys.size < 256) snakeKeys.set(key, converted);
  }
  return converted;
};

function envelopeMetadata(metadata: ToolOutcome["metadata"]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(metadata)) {
    const value = metadata[key];
    if (value === undefined) continue;
    if (key === "truncation" && typeof value === "object" && value !== null) {
      const t = value as { originalTokens: number; keptTokens: number };
      out.truncation = { original_tokens: t.originalTokens, kept_tokens: t.keptTokens };
    } else if (key === "latencyMs" && typeof value === "number") {
      out.latency_ms = Math.round(value * 100) / 100;
    } else {
      // Metadata values are primitives (the invoker's own) or what a middleware added: made JSON-safe.
      const plain = typeof value === "string" || typeof value === "number" || typeof value === "boolean";
      out[snake(key)] = plain ? value : toJsonSafe(value);
    }
  }
  return out;
}

/** The envelope object (before JSON) for an outcome; see {@link formatToolOutcome}. */
export function toolOutcomeEnvelope(
  outcome: ToolOutcome,
  options: Pick<FormatToolOutcomeOptions, "omitMetadata"> = {},
): Record<string, unknown> {
  const envelope: Record<string, unknown> = { status: outcome.status };
  // The untrusted mark stays even without metadata: the model is told this text is a third party's.
  if (outcome.metadata.provenance === "untrusted") envelope.provenance = "untrusted";
  if (outcome.errorCode !== undefined) envelope.error_code = outcome.errorCode;
  envelope.retriable = outcome.retriable;
  if (outcome.message !== undefined) envelope.message = outcome.message;
  if (outcome.suggestion !== undefined) envelope.suggestion = outcome.suggestion;
  if (outcome.data !== undefined) envelope.data = outcome.data;
  if (!options.omitMetadata) envelope.metadata = envelopeMetadata(outcome.metadata);
  return envelope;
}

function needlrShape(outcome: ToolOutcome): unknown {
  if (outcome.status === "ok") return outcome.data === undefined ? null : outcome.data;
  if (outcome.status === "partial") return outcome.data;
  const error: Record<string, unknown> = { message: outcome.message ?? `Tool call ${outcome.status}.` };
  if (outcome.suggestion !== undefined) error.suggestion = outcome.suggestion;
  return { error };
}

/**
 * Renders an outcome as the text the model reads. Always valid JSON, whatever `data` holds
 * (BigInt, cycles, Map, Date, ... are made safe). The exception is never rendered.
 *
 * @example
 * ```ts
 * formatToolOutcome(outcome);                      // {"status":"error","error_code":"NOT_FOUND",...}
 * formatToolOutcome(outcome, { style: "needlr" }); // {"error":{"message":"...","suggestion":"..."}}
 * ```
 */
export function formatToolOutcome(outcome: ToolOutcome, options: FormatToolOutcomeOptions = {}): string {
  const value = options.style === "needlr" ? needlrShape(outcome) : toolOutcomeEnvelope(outcome, options);
  // The outcome's data is its JSON-safe snapshot (taken once, as the call settled) and the rest is
  // strings, booleans and JSON-safe metadata: the native stringify, with no replacer, renders it.
  // A replacer made every key a call into JavaScript: 40% of a call returning an object (bench
  // "tool-result-shapes"). Data that is not a snapshot (an outcome built by hand) takes the safe path.
  if (outcome.data === undefined || isJsonSnapshot(outcome.data)) return JSON.stringify(value) ?? "null";
  return safeJsonStringify(value);
}
