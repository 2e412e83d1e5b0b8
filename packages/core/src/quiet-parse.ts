import type { z } from "zod";
import { $ZodAsyncError, type $ZodIssue, type $ZodRawIssue, config, util } from "zod/v4/core";

/** What {@link quietSafeParse} returns: the parsed data, or the issues as `safeParse` reports them. @internal */
export type QuietParseResult =
  | { readonly success: true; readonly data: unknown }
  | { readonly success: false; readonly issues: readonly $ZodIssue[] };

interface ParsePayload {
  value: unknown;
  issues: $ZodRawIssue[];
}

interface Runnable {
  readonly _zod?: {
    readonly run?: (payload: ParsePayload, ctx: { readonly async: false }) => ParsePayload | Promise<ParsePayload>;
  };
}

/**
 * `schema.safeParse(value)` without the `ZodError` around a failure's issues. zod builds that error
 * when `.error` is first read: an object with accessors, several `defineProperty` calls and, for
 * `safeParse`, a captured stack trace: work the invoker never needs, since it reads only the issues
 * (bench `design-choices`). This runs the schema the way zod's `safeParse` does and finalizes the issues
 * with zod's own `finalizeIssue` and global config, so messages (error maps, locales) are the same.
 * A schema without zod v4 internals goes through its own `safeParse`.
 * @internal
 *
 * @example
 * ```ts
 * const parsed = quietSafeParse(z.object({ a: z.number() }), { a: "x" });
 * if (!parsed.success) parsed.issues[0]?.message; // "Invalid input: expected number, received string"
 * ```
 */
export function quietSafeParse(schema: z.ZodType, value: unknown): QuietParseResult {
  const run = (schema as Runnable)._zod?.run;
  if (typeof run !== "function" || typeof util.finalizeIssue !== "function") {
    const parsed = schema.safeParse(value);
    return parsed.success ? { success: true, data: parsed.data } : { success: false, issues: parsed.error.issues };
  }
  const ctx = { async: false } as const;
  const result = run.call((schema as Runnable)._zod, { value, issues: [] }, ctx);
  if (result instanceof Promise) throw new $ZodAsyncError(); // as safeParse does for an async schema
  if (result.issues.length === 0) return { success: true, data: result.value };
  return { success: false, issues: result.issues.map((issue) => util.finalizeIssue(issue, ctx, config())) };
}
