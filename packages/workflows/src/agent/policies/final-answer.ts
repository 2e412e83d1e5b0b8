import type { z } from "zod";
import type { ChatUserMessage } from "@needlework/core";
import type { BlockingFailure } from "../loop/run-ledger.js";
import { describeBlocking } from "../loop/run-health.js";
import { claimsSuccess } from "./success-claim.js";

/**
 * A structured final-answer contract (the guide's output guardrail): the final answer must be JSON
 * matching `schema`, and its `statusField` must agree with the run's outcomes: a value that claims
 * success (`successValues`, default: what the success detector flags, such as "complete") is
 * refused while a failure is blocking.
 *
 * @example
 * ```ts
 * const finalAnswer: FinalAnswerOptions = {
 *   schema: z.object({ sync_status: z.enum(["complete", "partial", "failed"]), summary: z.string() }),
 *   statusField: "sync_status",
 * };
 * ```
 */
export interface FinalAnswerOptions {
  readonly schema: z.ZodType;
  readonly statusField: string;
  /** Status values that claim success; default: values `claimsSuccess` flags ("complete", "success", ...). */
  readonly successValues?: readonly string[];
}

/** The verdict on a structured final answer. @internal */
export type FinalAnswerVerdict =
  | { readonly ok: true; readonly output: unknown }
  | { readonly ok: false; readonly problem: string; readonly correction: ChatUserMessage };

function stripFence(text: string): string {
  const fenced = /^\s*```(?:json)?\s*\n([\s\S]*?)\n?```\s*$/i.exec(text);
  return fenced ? fenced[1]! : text;
}

/** The enum values of `statusField`, when the schema is a zod object with an enum there. */
function statusValues(options: FinalAnswerOptions): readonly string[] | undefined {
  const field = (options.schema as { shape?: Record<string, unknown> }).shape?.[options.statusField];
  const values = (field as { options?: unknown } | undefined)?.options;
  return Array.isArray(values) && values.every((v) => typeof v === "string") ? (values as string[]) : undefined;
}

const correction = (content: string): ChatUserMessage => ({ role: "user", kind: "correction", content });

/**
 * Checks a final answer against the contract and the blocking failures.
 * @internal
 */
export function checkFinalAnswer(
  text: string,
  options: FinalAnswerOptions,
  blocking: readonly BlockingFailure[],
): FinalAnswerVerdict {
  let parsed: unknown;
  try {
    parsed = JSON.parse(stripFence(text));
  } catch {
    const problem = "the final answer is not valid JSON";
    return {
      ok: false,
      problem,
      correction: correction(
        `Your final answer must be only a JSON object matching the required schema; ${problem}. Answer again with the JSON object alone.`,
      ),
    };
  }
  const result = options.schema.safeParse(parsed);
  if (!result.success) {
    const issues = result.error.issues
      .slice(0, 5)
      .map((i) => `${i.path.length > 0 ? i.path.join(".") : "(root)"}: ${i.message}`);
    const problem = `the final answer does not match the schema (${issues.join("; ")})`;
    return {
      ok: false,
      problem,
      correction: correction(
        `Your final answer must match the required schema; ${problem}. Answer again with a corrected JSON object.`,
      ),
    };
  }
  if (blocking.length === 0) return { ok: true, output: result.data };
  const status = (result.data as Record<string, unknown> | null)?.[options.statusField];
  const claims =
    typeof status === "string" &&
    (options.successValues ? options.successValues.includes(status) : claimsSuccess(status));
  if (!claims) return { ok: true, output: result.data };
  const allowed = statusValues(options)?.filter(
    (v) => !(options.successValues ? options.successValues.includes(v) : claimsSuccess(v)),
  );
  const problem = `"${options.statusField}" is ${JSON.stringify(status)} while ${blocking.length} tool call${blocking.length === 1 ? " has" : "s have"} not succeeded`;
  return {
    ok: false,
    problem,
    correction: correction(
      `Your final answer sets ${problem}:\n${describeBlocking(blocking)}\n` +
        `Set "${options.statusField}" to a value that reports the failures${allowed && allowed.length > 0 ? ` (${allowed.map((v) => JSON.stringify(v)).join(" or ")})` : ""} and describe what was not done.`,
    ),
  };
}
