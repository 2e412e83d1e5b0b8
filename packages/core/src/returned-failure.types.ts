// The shapes a returned failure is reported in: their own file, so the detector's parts import
// them without importing the detector.

/**
 * One failed item of a list inside a result: where it is (`index` in the list, and its `id` when
 * the item has one) and its stable code.
 *
 * @example
 * ```ts
 * const item: FailedItem = { index: 3, id: "c-4", code: "RATE_LIMITED" };
 * ```
 */
export interface FailedItem {
  /** The item's position in its list, from 0. */
  readonly index: number;
  /** The item's own `id` (or `referenceId`, `_id`, `key`), when it has a short one. */
  readonly id?: string | number;
  readonly code: string;
  /** Whether another attempt of this item may succeed. */
  readonly retriable?: boolean;
}

/**
 * A failure a tool *returned* (rather than threw), as a `failures` detector reports it. Every field
 * is optional: the code defaults to `TOOL_ERROR`, the message to fixed text for the code. A
 * `ToolFailure` (from `ToolResult.fail`) fits this shape too (`transient` is read as `retriable`).
 * With `items`, the failure is about items of a list: `partial` when some items succeeded.
 *
 * @example
 * ```ts
 * const failure: ReturnedFailure = { code: "CONTACT_LOCKED", message: "The contact is locked.", retriable: true };
 * ```
 */
export interface ReturnedFailure {
  /** A stable upper-snake code; anything else is shown as `TOOL_ERROR`. */
  readonly code?: string;
  /** What the model reads (secrets are scrubbed); fixed text per code when omitted. */
  readonly message?: string;
  /** Whether another attempt may succeed. Default `false`. */
  readonly retriable?: boolean;
  /** Read as `retriable` when that is not set (the `ToolFailure` spelling). */
  readonly transient?: boolean;
  /** A hint for the model on how to recover. */
  readonly suggestion?: string;
  /** How long to wait before another attempt (a `Retry-After`), in milliseconds. */
  readonly retryAfterMs?: number;
  /** The failed items of a list in the result; the outcome is `partial` when some items succeeded. */
  readonly items?: readonly FailedItem[];
  /** How many items the list held (with `items`); all of them failed → `error`. */
  readonly total?: number;
  /** The field holding the list (`results`, `items`, ...), or `""` for a result that is a list. */
  readonly field?: string;
  /** The HTTP status the failure was read from (a `Response`, a `status` field), when it was. */
  readonly httpStatus?: number;
}
