import { type JsonValue, toJsonSafe } from "./json-safe.js";
import type { FailedItem } from "./returned-failure.js";
import { scrubSecrets } from "./secrets/scrub-secrets.js";
import { isToolResult, type PartialFailure, type ToolResult } from "./tool-result.js";

const MARKER = Symbol.for("needlework.tool-outcome");

/**
 * The prototype of every outcome. It carries the marker (non-enumerable, so JSON, spreads and
 * equality checks see only the fields) and `constructor: Object`, so an outcome prints and compares
 * like an object literal. Defining the marker on each outcome with `Object.defineProperty` would add a
 * property definition to every call (bench `design-choices`); an object made from a prototype costs
 * nothing extra.
 */
const OUTCOME_PROTOTYPE: object = Object.create(Object.prototype, {
  [MARKER]: { value: true },
  constructor: { value: Object, writable: true, configurable: true },
});

/** The status of one tool call, as the model reads it. */
export type ToolOutcomeStatus = "ok" | "partial" | "error" | "timeout" | "cancelled" | "skipped";

/** Token counts of a truncated result. */
export interface TruncationInfo {
  readonly originalTokens: number;
  readonly keptTokens: number;
}

/** Facts about a call that travel with its outcome. */
export interface ToolOutcomeMetadata {
  tool: string;
  callId: string;
  attempts: number;
  latencyMs: number;
  idempotencyKey?: string;
  /** Markers such as `RESULT_TRUNCATED` or `REDACTED`. */
  flags?: string[];
  truncation?: TruncationInfo;
  /**
   * The error code of each attempt that failed and was retried, in order (the last attempt's own
   * code is the outcome's `errorCode`). Set only when resilience retried.
   */
  attemptErrors?: string[];
  /** Anything else plugins add (rollbacks, retry-after, ...). */
  [key: string]: unknown;
}

/**
 * Where a result too large for the model was stored (`usingArtifacts()`): the envelope carries it
 * beside the shaped preview in `data`, and the model pages through the whole with `read_artifact`.
 *
 * @example
 * ```ts
 * if (outcome.artifact) console.log(`${outcome.artifact.items} items, ${outcome.artifact.bytes} bytes in ${outcome.artifact.id}`);
 * ```
 */
export interface ArtifactReference {
  /** The artifact's id: the sha256 of its stored bytes (hex), readable only from its own run. */
  readonly id: string;
  /** The size of the stored JSON, in UTF-8 bytes. */
  readonly bytes: number;
  /** The items `read_artifact` pages through at the root: a list's length, an object's members, 1 for anything else. */
  readonly items: number;
  /** The shape of the stored value (a JSON Schema inferred from it, bounded), so the model knows which paths to read. */
  readonly schema: JsonValue;
}

/**
 * The normalized outcome of one tool call. `data` is a JSON-safe snapshot of the tool's value
 * ({@link toJsonSafe}), taken when the outcome is created as the call settles. `exception` keeps the original thrown value
 * for diagnostics and is never rendered for the model.
 */
export interface ToolOutcome {
  status: ToolOutcomeStatus;
  errorCode?: string;
  retriable: boolean;
  message?: string;
  suggestion?: string;
  /**
   * The failed items of a batch (`partial`, or an `error` where every item failed): index or id and
   * code, rendered before `data` so a reader of the first characters sees them.
   */
  failures?: readonly FailedItem[];
  data?: unknown;
  /** Where the whole result is stored when it was too large to read at once (`data` is then its preview). */
  artifact?: ArtifactReference;
  metadata: ToolOutcomeMetadata;
  exception?: unknown;
}

/** The fields of a new outcome; metadata may be partial and is completed by the invoker. */
export interface ToolOutcomeInit {
  readonly status: ToolOutcomeStatus;
  readonly errorCode?: string;
  readonly retriable?: boolean;
  readonly message?: string;
  readonly suggestion?: string;
  readonly failures?: readonly FailedItem[];
  readonly data?: unknown;
  readonly artifact?: ArtifactReference;
  readonly metadata?: Partial<ToolOutcomeMetadata>;
  readonly exception?: unknown;
}

const ERROR_CODE = /^[A-Z][A-Z0-9_]{1,63}$/;

/**
 * An error code as it may leave the process: an upper-snake identifier (`ORDER_NOT_FOUND`). Any other
 * value (`"password=..."`, lower case, spaces, an object) is replaced by `TOOL_ERROR` and never shown:
 * a code reaches the model, streams, results, traces and dead letters, and no detector reads it.
 *
 * @example
 * ```ts
 * safeErrorCode("ORDER_NOT_FOUND"); // "ORDER_NOT_FOUND"
 * safeErrorCode("token=abc"); // "TOOL_ERROR"
 * ```
 */
export function safeErrorCode(code: unknown): string {
  return typeof code === "string" && ERROR_CODE.test(code) ? code : "TOOL_ERROR";
}

/**
 * Creates a {@link ToolOutcome}. Middleware returns outcomes made here to tell the invoker (and the
 * layers outside) that the value is already normalized.
 *
 * @example
 * ```ts
 * return createToolOutcome({ status: "error", errorCode: "QUOTA_EXCEEDED", message: "Quota exceeded" });
 * ```
 */
export function createToolOutcome(init: ToolOutcomeInit): ToolOutcome {
  const outcome = Object.create(OUTCOME_PROTOTYPE) as ToolOutcome;
  outcome.status = init.status;
  outcome.retriable = init.retriable ?? false;
  outcome.metadata = (
    init.metadata === undefined
      ? { tool: "", callId: "", attempts: 0, latencyMs: 0 }
      : { tool: "", callId: "", attempts: 0, latencyMs: 0, ...init.metadata }
  ) as ToolOutcomeMetadata;
  if (init.errorCode !== undefined) outcome.errorCode = safeErrorCode(init.errorCode);
  // Failure texts reach the model, traces and logs: the default secret detectors always run on them
  // (redaction of `data` stays opt-in, `usingRedaction()`).
  if (init.message !== undefined) outcome.message = scrubSecrets(init.message);
  if (init.suggestion !== undefined) outcome.suggestion = scrubSecrets(init.suggestion);
  if (init.failures !== undefined && init.failures.length > 0) outcome.failures = listedFailures(init.failures);
  if (init.data !== undefined) outcome.data = jsonSnapshot(init.data);
  if (init.artifact !== undefined) outcome.artifact = artifactReference(init.artifact);
  if (init.exception !== undefined) outcome.exception = init.exception;
  return outcome;
}

/** The reference as it may leave the process: its four fields, JSON-safe, nothing else. */
function artifactReference(given: ArtifactReference): ArtifactReference {
  return {
    id: String(given.id),
    bytes: Number(given.bytes),
    items: Number(given.items),
    schema: toJsonSafe(given.schema) as JsonValue,
  };
}

/** At most this many failed items are listed on an outcome; the message counts every code. */
const MAX_LISTED_FAILURES = 50;

/** The failed items as they may leave the process: safe codes, short ids, at most 50. */
function listedFailures(items: readonly FailedItem[]): FailedItem[] {
  const out: FailedItem[] = [];
  for (const item of items.slice(0, MAX_LISTED_FAILURES)) {
    const id = item.id;
    const safeId =
      (typeof id === "number" && Number.isFinite(id)) ||
      (typeof id === "string" && id.length <= 64 && scrubSecrets(id) === id)
        ? id
        : undefined;
    out.push({
      index: Number.isInteger(item.index) ? item.index : -1,
      ...(safeId === undefined ? {} : { id: safeId }),
      code: safeErrorCode(item.code),
      ...(typeof item.retriable === "boolean" ? { retriable: item.retriable } : {}),
    });
  }
  return out;
}

/** A base class whose constructor returns the object it is given, so a subclass can stamp its private fields on it. */
class ReturnsTarget {
  constructor(target: object) {
    // biome-ignore lint/correctness/noConstructorReturn: the stamp below is this return's whole point
    return target;
  }
}

/**
 * The mark of a snapshot: a private field stamped on the snapshot object. It cannot be seen by
 * JSON, spreads, `Object.keys`, symbol listings or equality checks, and a copy does not carry it (a
 * copy someone changes is no longer a snapshot). Stamping costs about as much as one property
 * write; registering the object in a `WeakSet` cost about 300 ns per outcome (issue 36).
 */
class SnapshotMark extends ReturnsTarget {
  #snapshot = true;

  /** Marks a fresh snapshot object (each object once: only {@link jsonSnapshot} calls it). */
  static stamp(value: object): void {
    new SnapshotMark(value);
  }

  static has(value: object): boolean {
    return #snapshot in value;
  }
}

/**
 * True for data that is its JSON-safe snapshot (a `ToolOutcome`'s `data` as created): plain JSON by
 * construction, so it can be rendered by the native `JSON.stringify` without a replacer. @internal
 */
export function isJsonSnapshot(value: unknown): boolean {
  if (value === null) return true;
  switch (typeof value) {
    case "string":
    case "boolean":
      return true;
    case "number":
      return Number.isFinite(value);
    case "object":
      return SnapshotMark.has(value);
    default:
      return false;
  }
}

/**
 * The JSON-safe snapshot `data` holds: taken once, when the outcome is created as the call settles,
 * so shaping, formatting, traces, logs and dead letters all see the same value, whatever the tool
 * does to its object later (mutation, getters, a changing `toJSON`, boxed primitives).
 */
function jsonSnapshot(data: unknown): unknown {
  if (data === null || typeof data !== "object") return toJsonSafe(data);
  if (SnapshotMark.has(data)) return data;
  const safe = toJsonSafe(data);
  if (safe !== null && typeof safe === "object") SnapshotMark.stamp(safe);
  return safe;
}

/** True when `value` is a {@link ToolOutcome} made by {@link createToolOutcome}. */
export function isToolOutcome(value: unknown): value is ToolOutcome {
  return typeof value === "object" && value !== null && (value as Record<symbol, unknown>)[MARKER] === true;
}

/** True for the statuses that count as a failure: `error`, `timeout`, `partial`, `cancelled`, `skipped`. */
export function isFailedOutcome(outcome: Pick<ToolOutcome, "status">): boolean {
  return outcome.status !== "ok";
}

function summarizePartial(succeeded: number, failed: readonly PartialFailure[]): string {
  const counts = new Map<string, number>();
  for (const item of failed) {
    const code = typeof item.code === "string" ? item.code : "TOOL_ERROR";
    counts.set(code, (counts.get(code) ?? 0) + 1);
  }
  const codes = [...counts].map(([code, n]) => (n > 1 ? `${code} x${n}` : code)).join(", ");
  return `${succeeded} of ${succeeded + failed.length} items succeeded; ${failed.length} failed (${codes}).`;
}

/** Converts a {@link ToolResult} into a {@link ToolOutcome}. */
export function toolResultToOutcome(result: ToolResult, metadata?: Partial<ToolOutcomeMetadata>): ToolOutcome {
  const meta = metadata === undefined ? {} : { metadata };
  switch (result.kind) {
    case "ok":
      return createToolOutcome({ status: "ok", data: result.value, ...meta });
    case "fail": {
      const { error } = result;
      return createToolOutcome({
        status: "error",
        errorCode: error.code,
        retriable: error.transient,
        message: error.message,
        ...(error.suggestion === undefined ? {} : { suggestion: error.suggestion }),
        ...(error.data === undefined ? {} : { data: error.data }),
        ...(result.exception === undefined ? {} : { exception: result.exception }),
        ...meta,
      });
    }
    case "partial": {
      const { succeeded, failed } = result.items;
      const failedItems = failed.map((item) => ({
        ...item,
        code: typeof item.code === "string" ? item.code : "TOOL_ERROR",
      }));
      const retriable = failed.some((item) => item.transient === true);
      return createToolOutcome({
        status: failed.length === 0 ? "ok" : "partial",
        ...(failed.length === 0
          ? {}
          : { errorCode: "PARTIAL_FAILURE", message: summarizePartial(succeeded.length, failed) }),
        retriable,
        failures: failed.map((item, index) => {
          const id = item.id ?? item.referenceId;
          return {
            index,
            code: typeof item.code === "string" ? item.code : "TOOL_ERROR",
            ...(typeof id === "string" || typeof id === "number" ? { id } : {}),
            ...(typeof item.transient === "boolean" ? { retriable: item.transient } : {}),
          };
        }),
        data: { succeeded, failed: failedItems },
        ...meta,
      });
    }
  }
}

/**
 * Normalizes whatever a pipeline returned: an outcome stays as it is, a {@link ToolResult} is
 * unwrapped, and any other value becomes an `ok` outcome carrying it as `data`.
 */
export function toToolOutcome(value: unknown, metadata?: Partial<ToolOutcomeMetadata>): ToolOutcome {
  if (isToolOutcome(value)) return value;
  if (isToolResult(value)) return toolResultToOutcome(value, metadata);
  return createToolOutcome({ status: "ok", data: value, ...(metadata === undefined ? {} : { metadata }) });
}
