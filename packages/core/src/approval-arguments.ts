import { createHash } from "node:crypto";
import type { AgentFunctionDescriptor } from "./agent-function.options.js";
import { canonicalJson, parsedArguments } from "./canonical-json.js";
import { toJsonSafe, type JsonValue } from "./json-safe.js";
import { type ArgumentLimits, DEFAULT_ARGUMENT_LIMITS, parseToolArguments } from "./tool-arguments.js";
import { createToolOutcome, type ToolOutcome } from "./tool-outcome.js";
import { defOf, type ZodDefLike } from "./zod-def.js";

/**
 * The longest arguments a person is asked to approve, in characters of the JSON they are shown
 * (keys in the schema's order, two-space indented). Longer arguments are never cut: the call is
 * refused with `APPROVAL_ARGUMENTS_TOO_LONG` and nobody is asked.
 *
 * @example
 * ```ts
 * if (text.length > MAX_APPROVAL_ARGUMENTS_CHARS) console.log("too long to show a reviewer");
 * ```
 */
export const MAX_APPROVAL_ARGUMENTS_CHARS = 4096;

/**
 * The SHA-256 (hex) of a call's canonical arguments: JSON text is parsed first and object keys are
 * sorted at every level, so `'{"b":1,"a":2}'` and `{ a: 2, b: 1 }` hash alike. Approvals (signed
 * decision records, MCP, the AI SDK adapter) are bound to it: an approval of arguments A never
 * runs arguments B.
 *
 * @example
 * ```ts
 * argumentsHash('{"amount":10,"payee":"ACME"}') === argumentsHash({ payee: "ACME", amount: 10 }); // true
 * ```
 */
export function argumentsHash(args: unknown): string {
  const parsed = parsedArguments(args ?? {});
  let text: string;
  try {
    text = typeof parsed === "string" ? `raw:${parsed}` : `json:${canonicalJson(parsed)}`;
  } catch {
    // Not serializable (a cycle, a BigInt): such arguments never validate, so they never run.
    text = "unserializable";
  }
  return createHash("sha256").update(text).digest("hex");
}

/**
 * What {@link checkApprovalArguments} found: the arguments as a person is shown them (whole) and
 * their hash, or the outcome the call gets instead of a prompt.
 *
 * @example
 * ```ts
 * const checked = checkApprovalArguments(tool, args, { callId });
 * if (!checked.ok) return checked.outcome; // INVALID_ARGUMENTS or APPROVAL_ARGUMENTS_TOO_LONG
 * ```
 */
export type ApprovalArguments =
  | {
      readonly ok: true;
      /** The arguments as the tool will receive them (validated by its schema). */
      readonly value: Readonly<Record<string, unknown>>;
      /** Every argument, keys in the schema's order, two-space indented JSON. Never cut. */
      readonly text: string;
      /** {@link argumentsHash} of the arguments as they were sent. */
      readonly hash: string;
    }
  | { readonly ok: false; readonly outcome: ToolOutcome };

/**
 * Options of {@link checkApprovalArguments}.
 *
 * @example
 * ```ts
 * const options: ApprovalArgumentsOptions = { callId: "call_1", maxChars: 2_000 };
 * ```
 */
export interface ApprovalArgumentsOptions {
  /** The call's id, for the refusal's metadata. */
  readonly callId: string;
  /** Size and depth limits of the arguments; default `DEFAULT_ARGUMENT_LIMITS`. */
  readonly limits?: ArgumentLimits;
  /** The longest text shown; default {@link MAX_APPROVAL_ARGUMENTS_CHARS}. */
  readonly maxChars?: number;
}

/** The schema an object or array value is described by, through wrappers (optional, default, pipe...). */
function unwrap(schema: unknown): ZodDefLike | undefined {
  let def = defOf(schema);
  for (let i = 0; def !== undefined && i < 32; i++) {
    switch (def.type) {
      case "optional":
      case "nullable":
      case "default":
      case "prefault":
      case "catch":
      case "readonly":
      case "nonoptional":
        def = defOf(def.innerType);
        continue;
      case "pipe":
        def = defOf(def.out);
        continue;
      case "lazy":
        def = typeof def.getter === "function" ? defOf((def.getter as () => unknown)()) : undefined;
        continue;
      default:
        return def;
    }
  }
  return def;
}

/**
 * Pretty JSON whose object keys follow the schema: declared keys in the schema's order, any others
 * (a loose object, a record) after them, sorted. Never the model's order, which could push what
 * matters (payee, amount) to the end. Written as text, so a `__proto__` key stays a key.
 */
function displayJson(value: JsonValue, schema: unknown, indent: string): string {
  if (value === null || typeof value !== "object") return JSON.stringify(value);
  const def = unwrap(schema);
  const inner = `${indent}  `;
  if (Array.isArray(value)) {
    if (value.length === 0) return "[]";
    const element = def?.type === "array" ? def.element : undefined;
    return `[\n${value.map((v) => inner + displayJson(v, element, inner)).join(",\n")}\n${indent}]`;
  }
  const keys = Object.keys(value);
  if (keys.length === 0) return "{}";
  const shape = def?.type === "object" ? (def.shape as Record<string, unknown>) : undefined;
  const declared = shape === undefined ? [] : Object.keys(shape).filter((k) => Object.hasOwn(value, k));
  const others = keys.filter((k) => shape === undefined || !Object.hasOwn(shape, k)).sort();
  const valueSchema = (key: string): unknown =>
    shape !== undefined && Object.hasOwn(shape, key) ? shape[key] : def?.type === "record" ? def.valueType : undefined;
  const lines = [...declared, ...others].map(
    (key) => `${inner}${JSON.stringify(key)}: ${displayJson(value[key] as JsonValue, valueSchema(key), inner)}`,
  );
  return `{\n${lines.join(",\n")}\n${indent}}`;
}

/**
 * Prepares a call to a `requiresApproval` tool for a person: validates its arguments against the
 * tool's schema BEFORE anyone is asked (invalid ones get the `INVALID_ARGUMENTS` outcome the invoker
 * would give, and no prompt), renders every argument in the schema's key order, and refuses
 * arguments too long to show (`APPROVAL_ARGUMENTS_TOO_LONG`, not retriable) instead of cutting them.
 * The agent loop, the MCP server and the AI SDK adapter all ask through it.
 *
 * @example
 * ```ts
 * const checked = checkApprovalArguments(invoker.get("transfer")!, call.arguments, { callId: call.callId });
 * if (checked.ok) await askReviewer(`Run transfer with\n${checked.text}?`);
 * ```
 */
export function checkApprovalArguments(
  tool: AgentFunctionDescriptor,
  args: unknown,
  options: ApprovalArgumentsOptions,
): ApprovalArguments {
  const limits = { ...DEFAULT_ARGUMENT_LIMITS, ...options.limits };
  const maxChars = options.maxChars ?? MAX_APPROVAL_ARGUMENTS_CHARS;
  const metadata = { tool: tool.name, callId: options.callId, attempts: 0, latencyMs: 0 };
  const parsed = parseToolArguments(args, tool.input, limits);
  if (!parsed.ok) {
    return {
      ok: false,
      outcome: createToolOutcome({
        status: "error",
        errorCode: "INVALID_ARGUMENTS",
        message: `Invalid arguments for tool '${tool.name}': ${parsed.problems.join("; ")}. Nobody was asked to approve it and nothing ran.`,
        suggestion: "Call the tool again with arguments that match its schema.",
        metadata,
      }),
    };
  }
  const text = displayJson(toJsonSafe(parsed.value), tool.input, "");
  if (text.length > maxChars) {
    return {
      ok: false,
      outcome: createToolOutcome({
        status: "error",
        errorCode: "APPROVAL_ARGUMENTS_TOO_LONG",
        retriable: false,
        message: `Not called: the arguments of '${tool.name}' are too long to show a person for approval (the limit is ${maxChars} characters), and a person must see every argument. Nothing ran.`,
        suggestion:
          "Split the work into several smaller calls, or shorten the arguments (for example refer to a stored document by id instead of sending its text).",
        metadata,
      }),
    };
  }
  return { ok: true, value: parsed.value, text, hash: argumentsHash(args) };
}
