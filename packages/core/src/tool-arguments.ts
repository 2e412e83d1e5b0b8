import type { z } from "zod";
import { quietSafeParse } from "./quiet-parse.js";
import { defOf } from "./zod-def.js";

/** Limits applied to argument payloads before validation. */
export interface ArgumentLimits {
  /**
   * Largest payload accepted, in UTF-8 bytes of its JSON: the string a model sent, or an object
   * argument once serialized. Default 1 MB (1,048,576).
   */
  readonly maxBytes?: number;
  /** Deepest nesting of objects and arrays accepted, the arguments object being level 1. Default 64. */
  readonly maxDepth?: number;
}

/** The defaults of {@link ArgumentLimits}. */
export const DEFAULT_ARGUMENT_LIMITS: Required<ArgumentLimits> = Object.freeze({ maxBytes: 1_048_576, maxDepth: 64 });

/** Keys that never reach a tool: they would touch prototypes. */
const FORBIDDEN_KEYS = new Set(["__proto__", "constructor", "prototype"]);

/** The result of {@link parseToolArguments}. */
export type ParsedArguments =
  | { readonly ok: true; readonly value: Record<string, unknown> }
  | { readonly ok: false; readonly problems: readonly string[] };

const MAX_LISTED = 8;

function formatPath(path: readonly PropertyKey[]): string {
  if (path.length === 0) return "(root)";
  return path.map((p, i) => (typeof p === "number" ? `[${p}]` : i === 0 ? String(p) : `.${String(p)}`)).join("");
}

interface ShapeProblem {
  readonly path: string[];
  readonly problem: string;
}

/**
 * A cheap estimate of the JSON size of the value walked by {@link checkShape}: string lengths in
 * UTF-16 units plus quotes and separators, a fixed size per other primitive. Only an object payload
 * whose estimate comes near the limit is serialized to measure it exactly.
 * Module state is safe here: the walk is synchronous.
 */
let sizeEstimate = 0;

/**
 * Walks a parsed payload once: the depth limit (which also stops cycles in object arguments),
 * forbidden keys, and a lower bound of its JSON size. Paths are built only on the way out of a
 * failure, so the common case allocates nothing.
 */
function checkShape(value: unknown, depth: number, maxDepth: number): ShapeProblem | undefined {
  if (typeof value !== "object" || value === null) {
    sizeEstimate += typeof value === "string" ? value.length + 3 : typeof value === "number" ? 8 : 2;
    return undefined;
  }
  if (depth > maxDepth) return { path: [], problem: `the arguments nest deeper than ${maxDepth} levels` };
  sizeEstimate += 2;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const found = checkShape(value[i], depth + 1, maxDepth);
      if (found) return (found.path.unshift(`[${i}]`), found);
    }
    return undefined;
  }
  for (const key of Object.keys(value)) {
    if (FORBIDDEN_KEYS.has(key)) return { path: [key], problem: `the key '${key}' is not allowed` };
    sizeEstimate += key.length + 3;
    const found = checkShape((value as Record<string, unknown>)[key], depth + 1, maxDepth);
    if (found) return (found.path.unshift(key), found);
  }
  return undefined;
}

/** The UTF-8 size of an object payload's JSON, or `undefined` when it cannot be serialized. */
function jsonBytes(value: unknown): number | undefined {
  try {
    const text = JSON.stringify(value);
    return text === undefined ? undefined : Buffer.byteLength(text, "utf8");
  } catch {
    return undefined;
  }
}

const tooLarge = (bytes: number, limit: number): string =>
  `the arguments are ${bytes} bytes; the limit is ${limit} bytes`;

function unknownFields(path: readonly PropertyKey[], keys: readonly string[]): string {
  const many = keys.length > 1;
  return `${formatPath(path)}: unknown field${many ? "s" : ""} ${keys.map((k) => `'${k}'`).join(", ")} (remove ${many ? "them" : "it"})`;
}

function isPlainRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * Fields a zod object in "strip" mode (the `z.object()` default) would silently drop. A model that
 * misnames an optional field must hear about it rather than have it vanish, so these are reported
 * like any other invalid argument; `z.looseObject()` (or `.catchall()`) opts out.
 */
function findUnknownKeys(schema: unknown, value: unknown, path: PropertyKey[], out: string[]): void {
  if (typeof value !== "object" || value === null) return; // only objects have keys
  const def = defOf(schema);
  if (def === undefined || out.length >= MAX_LISTED) return;
  switch (def.type) {
    case "optional":
    case "nullable":
    case "default":
    case "prefault":
    case "catch":
    case "readonly":
    case "nonoptional":
      return findUnknownKeys(def.innerType, value, path, out);
    case "pipe":
      return findUnknownKeys(def.in, value, path, out);
    case "lazy":
      return typeof def.getter === "function"
        ? findUnknownKeys((def.getter as () => unknown)(), value, path, out)
        : undefined;
    case "array":
      if (Array.isArray(value)) {
        for (let i = 0; i < value.length; i++) {
          path.push(i);
          findUnknownKeys(def.element, value[i], path, out);
          path.pop();
        }
      }
      return;
    case "record":
      if (isPlainRecord(value)) {
        for (const key of Object.keys(value)) {
          path.push(key);
          findUnknownKeys(def.valueType, value[key], path, out);
          path.pop();
        }
      }
      return;
    case "union": {
      // Only the options the value actually satisfies decide; the value is fine if one of them keeps every key.
      if (!Array.isArray(def.options)) return;
      let first: string[] | undefined;
      for (const option of def.options as { safeParse?: (v: unknown) => { success: boolean } }[]) {
        if (typeof option.safeParse !== "function" || !quietSafeParse(option as z.ZodType, value).success) continue;
        const found: string[] = [];
        findUnknownKeys(option, value, path, found);
        if (found.length === 0) return;
        first ??= found;
      }
      if (first) out.push(...first);
      return;
    }
    case "object": {
      if (!isPlainRecord(value)) return;
      const shape = def.shape as Record<string, unknown>;
      const keys = Object.keys(value);
      let unknown: string[] | undefined;
      let nested = false;
      for (const key of keys) {
        if (!Object.hasOwn(shape, key)) {
          if (def.catchall === undefined) (unknown ??= []).push(key);
        } else if (typeof value[key] === "object" && value[key] !== null) nested = true;
      }
      if (unknown) out.push(unknownFields(path, unknown));
      if (!nested) return;
      for (const key of keys) {
        if (!Object.hasOwn(shape, key)) continue;
        path.push(key);
        findUnknownKeys(shape[key], value[key], path, out);
        path.pop();
      }
      return;
    }
    default:
      return;
  }
}

function describeType(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  return typeof value === "object" ? "an object" : `a ${typeof value}`;
}

/**
 * Turns model-produced arguments (an object or a JSON string) into schema-valid arguments, or a
 * short, model-readable list of what was wrong (field paths and what was expected).
 * @internal
 */
export function parseToolArguments(raw: unknown, schema: z.ZodType, limits: Required<ArgumentLimits>): ParsedArguments {
  try {
    return parseReadableArguments(raw, schema, limits);
  } catch {
    // Object arguments handed over by code (not a model) may hold throwing getters or be proxies:
    // they are bad input like any other, never an exception out of invoke().
    return { ok: false, problems: ["the arguments could not be read (a getter or proxy threw); send plain JSON data"] };
  }
}

function parseReadableArguments(raw: unknown, schema: z.ZodType, limits: Required<ArgumentLimits>): ParsedArguments {
  let value: unknown = raw;
  let sizeChecked = false;
  if (raw === undefined || raw === null || raw === "") value = {};
  else if (typeof raw === "string") {
    if (raw.length > limits.maxBytes / 3 && Buffer.byteLength(raw, "utf8") > limits.maxBytes) {
      return { ok: false, problems: [tooLarge(Buffer.byteLength(raw, "utf8"), limits.maxBytes)] };
    }
    sizeChecked = true;
    try {
      value = JSON.parse(raw);
    } catch {
      return { ok: false, problems: ["the arguments are not valid JSON; send a JSON object"] };
    }
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    return { ok: false, problems: [`the arguments must be a JSON object, not ${describeType(value)}`] };
  }
  sizeEstimate = 0;
  const shape = checkShape(value, 1, limits.maxDepth);
  if (shape)
    return {
      ok: false,
      problems: [
        shape.path.length
          ? `${formatPath(shape.path.map((p) => (p.startsWith("[") ? Number(p.slice(1, -1)) : p)))}: ${shape.problem}`
          : shape.problem,
      ],
    };
  // Object arguments (from an SDK that parsed the JSON already) get the same size limit as strings.
  // The JSON is at most 6 times the estimate (a UTF-16 unit takes at most 6 bytes, as a \u escape),
  // so only a payload estimated above maxBytes / 6 is serialized and measured.
  if (!sizeChecked && sizeEstimate > limits.maxBytes / 6) {
    const bytes = jsonBytes(value) ?? sizeEstimate;
    if (bytes > limits.maxBytes) return { ok: false, problems: [tooLarge(bytes, limits.maxBytes)] };
  }
  const parsed = quietSafeParse(schema, value);
  const problems: string[] = [];
  findUnknownKeys(schema, value, [], problems);
  if (parsed.success && problems.length === 0) return { ok: true, value: parsed.data as Record<string, unknown> };
  const issues = parsed.success ? [] : parsed.issues;
  for (const issue of issues) {
    if (issue.code === "unrecognized_keys")
      problems.push(unknownFields(issue.path, (issue as { keys: string[] }).keys));
    else problems.push(`${formatPath(issue.path)}: ${issue.message.replace(/^Invalid input: /, "")}`);
  }
  if (problems.length <= MAX_LISTED) return { ok: false, problems };
  return { ok: false, problems: [...problems.slice(0, MAX_LISTED), `... and ${problems.length - MAX_LISTED} more`] };
}
