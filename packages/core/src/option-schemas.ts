import { z } from "zod";

/**
 * Schemas for the kinds of value options share, each with one message for every way a value can
 * miss it (zod's own messages would differ between "not a number" and "too small").
 */

/**
 * An integer of at least `min` (a safe integer: `Infinity`, `NaN` and `2.5` are refused).
 * Part of `@needlework/core/kit`.
 */
export function integerAtLeast(min: number) {
  const message = `must be an integer of at least ${min}`;
  return z.int(message).min(min, message);
}

/**
 * A function, kept as it is: never wrapped, so its behaviour and `this` are the caller's.
 * Part of `@needlework/core/kit`.
 */
export function functionOption<F extends (...args: never[]) => unknown>(message = "must be a function") {
  return z.custom<F>((value) => typeof value === "function", message);
}

/**
 * A string or a regular expression (an entry of `fieldNames`, `allow`, `preserveKeys`).
 * Part of `@needlework/core/kit`.
 */
export const stringOrRegExp = z.union([z.string(), z.instanceof(RegExp)], "must be a string or a regular expression");

/**
 * One side of a {@link requireOrder} check: the option's path, what the caller gave and its default.
 * Part of `@needlework/core/kit`.
 */
export interface OrderedOption {
  readonly path: readonly string[];
  readonly given: number | undefined;
  readonly fallback: number;
}

/**
 * For a `superRefine`: adds an issue when `low` exceeds `high` once defaults are applied. It is
 * reported on the upper bound when the caller gave it, else on the lower one, so the message always
 * names an option the caller wrote. `why` ends the message (": one attempt cannot outlast ...").
 * Part of `@needlework/core/kit`.
 */
export function requireOrder(ctx: z.RefinementCtx, low: OrderedOption, high: OrderedOption, why = ""): void {
  const lowValue = low.given ?? low.fallback;
  const highValue = high.given ?? high.fallback;
  if (lowValue <= highValue) return;
  ctx.addIssue(
    high.given !== undefined
      ? { code: "custom", path: [...high.path], message: `must not be below ${low.path.join(".")} (${lowValue})${why}` }
      : { code: "custom", path: [...low.path], message: `must not exceed ${high.path.join(".")} (${highValue})${why}` },
  );
}
