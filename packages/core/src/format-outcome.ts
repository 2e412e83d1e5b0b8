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

/** `latencyMs` as the envelope shows it: rounded to hundredths of a millisecond. */
const roundedLatency = (ms: number): number => Math.round(ms * 100) / 100;

function envelopeMetadata(metadata: ToolOutcome["metadata"]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(metadata)) {
    const value = metadata[key];
    if (value === undefined) continue;
    if (key === "truncation" && typeof value === "object" && value !== null) {
      const t = value as { originalTokens: number; keptTokens: number };
      out.truncation = { original_tokens: t.originalTokens, kept_tokens: t.keptTokens };
    } else if (key === "latencyMs" && typeof value === "number") {
      out.latency_ms = roundedLatency(value);
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
  // The failed items come before the data: a reader of the first characters (or a truncated
  // view) sees which items failed and why before any of the data.
  if (outcome.failures !== undefined) envelope.failures = outcome.failures.map(renderFailure);
  if (outcome.suggestion !== undefined) envelope.suggestion = outcome.suggestion;
  // The reference comes before the preview: a reader of the first characters learns the data is a part.
  if (outcome.artifact !== undefined) envelope.artifact = outcome.artifact;
  if (outcome.data !== undefined) envelope.data = outcome.data;
  if (!options.omitMetadata) envelope.metadata = envelopeMetadata(outcome.metadata);
  return envelope;
}

/** A failed item as the model reads it: `{ index, id?, code }`. */
function renderFailure(item: NonNullable<ToolOutcome["failures"]>[number]): Record<string, unknown> {
  return item.id === undefined
    ? { index: item.index, code: item.code }
    : { index: item.index, id: item.id, code: item.code };
}

function needlrShape(outcome: ToolOutcome): unknown {
  // A stored result: its preview beside the reference, so the model can page through the rest.
  if (outcome.artifact !== undefined) return needlrArtifactShape(outcome, outcome.artifact);
  if (outcome.status === "ok") return outcome.data === undefined ? null : outcome.data;
  if (outcome.status === "partial" && outcome.failures === undefined) return outcome.data;
  const error: Record<string, unknown> = { message: outcome.message ?? `Tool call ${outcome.status}.` };
  if (outcome.suggestion !== undefined) error.suggestion = outcome.suggestion;
  if (outcome.failures === undefined) return { error };
  // A batch: which items failed comes first, then the data (every item, as the tool returned it).
  const shaped: Record<string, unknown> = { error, failures: outcome.failures.map(renderFailure) };
  if (outcome.data !== undefined) shaped.data = outcome.data;
  return shaped;
}

/** The Needlr shape of a stored result: `{ artifact, data }`, after the error and failures of a failed one. */
function needlrArtifactShape(outcome: ToolOutcome, artifact: NonNullable<ToolOutcome["artifact"]>): unknown {
  const shaped: Record<string, unknown> = {};
  if (outcome.status !== "ok") {
    const error: Record<string, unknown> = { message: outcome.message ?? `Tool call ${outcome.status}.` };
    if (outcome.suggestion !== undefined) error.suggestion = outcome.suggestion;
    shaped.error = error;
    if (outcome.failures !== undefined) shaped.failures = outcome.failures.map(renderFailure);
  }
  shaped.artifact = artifact;
  shaped.data = outcome.data === undefined ? null : outcome.data;
  return shaped;
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
  const snapshot = outcome.data === undefined || isJsonSnapshot(outcome.data);
  if (options.style === "needlr") {
    const value = needlrShape(outcome);
    return snapshot ? (JSON.stringify(value) ?? "null") : safeJsonStringify(value);
  }
  // The outcome's data is its JSON-safe snapshot (taken once, as the call settled) and the rest is
  // strings, booleans and JSON-safe metadata: the envelope is written from a template in which only
  // `data` goes through one native stringify (see envelopeText). Data that is not a snapshot (an
  // outcome built by hand) takes the safe path over the whole envelope.
  if (snapshot) {
    const text = envelopeText(outcome, options.omitMetadata === true);
    if (text !== undefined) return text;
  }
  return safeJsonStringify(toolOutcomeEnvelope(outcome, options));
}

/** A character JSON escapes in a string: a quote, a backslash, a control character or a surrogate half. */
const NEEDS_ESCAPE = /["\\\u0000-\u001f\ud800-\udfff]/;

/**
 * The JSON of a metadata or envelope value, the same text as `JSON.stringify(value)`. A string
 * with nothing to escape is quoted as it is and a number is its `String`: each `JSON.stringify` of a
 * short value cost 60 to 80 ns and the envelope of `{ sum }` wrote eight of them (a third of
 * formatting it, bench "tool-result-shapes").
 */
function primitiveJson(value: unknown): string | undefined {
  switch (typeof value) {
    case "string":
      return NEEDS_ESCAPE.test(value) ? JSON.stringify(value) : `"${value}"`;
    case "number":
      return Number.isFinite(value) ? String(value) : "null";
    case "boolean":
      return value ? "true" : "false";
    default:
      return JSON.stringify(value);
  }
}

/**
 * `,"key":<JSON of value>`, or nothing when JSON leaves the member out (`undefined`), as
 * `JSON.stringify` of the envelope object would.
 */
function member(key: string, value: unknown): string {
  const json = primitiveJson(value);
  return json === undefined ? "" : `,"${key}":${json}`;
}

/**
 * The envelope of {@link toolOutcomeEnvelope} as text, written member by member: the same bytes as
 * `JSON.stringify(toolOutcomeEnvelope(outcome))`, checked by a test over varied data. Why a template:
 * stringifying the whole envelope object cost about two thirds of formatting a small result (a
 * 182-character envelope for `{ sum }`, bench "tool-result-shapes"), most of it building and walking
 * the envelope and metadata objects; here only `data` is one native stringify and the rest is short
 * strings. `undefined` when the outcome is unusual enough for the generic path (a status that is not
 * a string, a metadata key that is not plain camelCase).
 */
function envelopeText(outcome: ToolOutcome, omitMetadata: boolean): string | undefined {
  if (typeof outcome.status !== "string") return undefined;
  let text = `{"status":${primitiveJson(outcome.status)}`;
  if (outcome.metadata.provenance === "untrusted") text += ',"provenance":"untrusted"';
  if (outcome.errorCode !== undefined) text += member("error_code", outcome.errorCode);
  text += member("retriable", outcome.retriable);
  if (outcome.message !== undefined) text += member("message", outcome.message);
  if (outcome.failures !== undefined) text += member("failures", outcome.failures.map(renderFailure));
  if (outcome.suggestion !== undefined) text += member("suggestion", outcome.suggestion);
  if (outcome.artifact !== undefined) text += member("artifact", outcome.artifact);
  if (outcome.data !== undefined) text += member("data", outcome.data);
  if (omitMetadata) return `${text}}`;
  const metadata = metadataText(outcome.metadata);
  return metadata === undefined ? undefined : `${text},"metadata":${metadata}}`;
}

/** Plain camelCase: its snake_case form is unique (no key of this shape maps onto another's). */
const CAMEL_KEY = /^[a-z][a-zA-Z0-9]*$/;

// Each metadata key's `"snake_key":` prefix, or "" for a key the template does not take; few keys
// recur on every call, so each is checked and converted once (bounded like `snakeKeys`).
const memberPrefixes = new Map<string, string>();
const memberPrefix = (key: string): string => {
  let prefix = memberPrefixes.get(key);
  if (prefix === undefined) {
    prefix = CAMEL_KEY.test(key) ? `"${snake(key)}":` : "";
    if (memberPrefixes.size < 256) memberPrefixes.set(key, prefix);
  }
  return prefix;
};

/** The keys of the metadata the invoker writes on every outcome, in the order it writes them. */
const INVOKER_KEYS = ["tool", "callId", "attempts", "latencyMs", "idempotencyKey"] as const;

/** True when `keys` are exactly {@link INVOKER_KEYS}, in that order. */
function invokerKeys(keys: readonly string[]): boolean {
  if (keys.length !== INVOKER_KEYS.length) return false;
  for (let i = 0; i < keys.length; i++) if (keys[i] !== INVOKER_KEYS[i]) return false;
  return true;
}

/** The metadata object of {@link envelopeMetadata} as text, or `undefined` for a key the template does not take. */
function metadataText(metadata: ToolOutcome["metadata"]): string | undefined {
  const keys = Object.keys(metadata);
  // What nearly every outcome carries: its members written in one template, each read by name (a
  // third of the metadata's cost, bench "tool-result-shapes": no per-key lookups of its prefix).
  if (
    invokerKeys(keys) &&
    typeof metadata.tool === "string" &&
    typeof metadata.callId === "string" &&
    typeof metadata.attempts === "number" &&
    typeof metadata.latencyMs === "number" &&
    typeof metadata.idempotencyKey === "string"
  )
    return `{"tool":${primitiveJson(metadata.tool)},"call_id":${primitiveJson(metadata.callId)},"attempts":${primitiveJson(metadata.attempts)},"latency_ms":${primitiveJson(roundedLatency(metadata.latencyMs))},"idempotency_key":${primitiveJson(metadata.idempotencyKey)}}`;
  let text = "";
  for (const key of keys) {
    const value = metadata[key];
    if (value === undefined) continue;
    // Another shape of key (an integer, `__proto__`, snake_case that may collide with a converted
    // one) is ordered or merged by the object the generic path builds: it takes that path.
    const prefix = memberPrefix(key);
    if (prefix === "") return undefined;
    let json: string | undefined;
    if (key === "truncation" && typeof value === "object" && value !== null) {
      const t = value as { originalTokens: number; keptTokens: number };
      json = JSON.stringify({ original_tokens: t.originalTokens, kept_tokens: t.keptTokens });
    } else if (key === "latencyMs" && typeof value === "number") {
      json = primitiveJson(roundedLatency(value));
    } else {
      const plain = typeof value === "string" || typeof value === "number" || typeof value === "boolean";
      json = plain ? primitiveJson(value) : JSON.stringify(toJsonSafe(value));
    }
    if (json === undefined) continue;
    text += text === "" ? prefix + json : `,${prefix}${json}`;
  }
  return `{${text}}`;
}
