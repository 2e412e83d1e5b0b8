import type { z } from "zod";

/** Limits applied to argument payloads before validation. */
export interface ArgumentLimits {
  /** Largest JSON-string payload accepted, in bytes (UTF-8). Default 1 MB (1,048,576). */
  readonly maxBytes?: number;
  /** Deepest nesting accepted. Default 64. */
  readonly maxDepth?: number;
}

/** The defaults of {@link ArgumentLimits}. */
export const DEFAULT_ARGUMENT_LIMITS: Required<ArgumentLimits> = Object.freeze({ maxBytes: 1_048_576, maxDepth: 64 });

/** Keys that never reach a tool: they would touch prototypes. */
const FORBIDDEN_KEYS = new Set(["__proto__", "constructor", "prototype"]);

/** The result of {@link parseToolArguments}. */
export type ParsedArguments = { readonly ok: true; readonly value: Record<string, unknown> } | { readonly ok: false; readonly problems: readonly string[] };

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
 * Walks a parsed payload once: the depth limit (which also stops cycles in object arguments) and
 * forbidden keys. Paths are built only on the way out of a failure, so the common case allocates nothing.
 */
function checkShape(value: unknown, depth: number, maxDepth: number): ShapeProblem | undefined {
  if (typeof value !== "object" || value === null) return undefined;
  if (depth > maxDepth) return { path: [], problem: `the arguments nest deeper than ${maxDepth} levels` };
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const found = checkShape(value[i], depth + 1, maxDepth);
      if (found) return (found.path.unshift(`[${i}]`), found);
    }
    return undefined;
  }
  for (const key of Object.keys(value)) {
    if (FORBIDDEN_KEYS.has(key)) return { path: [key], problem: `the key '${key}' is not allowed` };
    const found = checkShape((value as Record<string, unknown>)[key], depth + 1, maxDepth);
    if (found) return (found.path.unshift(key), found);
  }
  return undefined;
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
  let value: unknown = raw;
  if (raw === undefined || raw === null || raw === "") value = {};
  else if (typeof raw === "string") {
    if (raw.length > limits.maxBytes / 3 && Buffer.byteLength(raw, "utf8") > limits.maxBytes) {
      return { ok: false, problems: [`the arguments are ${Buffer.byteLength(raw, "utf8")} bytes; the limit is ${limits.maxBytes} bytes`] };
    }
    try {
      value = JSON.parse(raw);
    } catch {
      return { ok: false, problems: ["the arguments are not valid JSON; send a JSON object"] };
    }
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    return { ok: false, problems: [`the arguments must be a JSON object, not ${describeType(value)}`] };
  }
  const shape = checkShape(value, 1, limits.maxDepth);
  if (shape) return { ok: false, problems: [shape.path.length ? `${formatPath(shape.path.map((p) => (p.startsWith("[") ? Number(p.slice(1, -1)) : p)))}: ${shape.problem}` : shape.problem] };
  const parsed = schema.safeParse(value);
  if (parsed.success) return { ok: true, value: parsed.data as Record<string, unknown> };
  const problems = parsed.error.issues.slice(0, MAX_LISTED).map((issue) => {
    if (issue.code === "unrecognized_keys") {
      const keys = (issue as { keys: string[] }).keys.map((k) => `'${k}'`).join(", ");
      return `${formatPath(issue.path)}: unknown field${(issue as { keys: string[] }).keys.length > 1 ? "s" : ""} ${keys} (remove ${(issue as { keys: string[] }).keys.length > 1 ? "them" : "it"})`;
    }
    return `${formatPath(issue.path)}: ${issue.message.replace(/^Invalid input: /, "")}`;
  });
  if (parsed.error.issues.length > MAX_LISTED) problems.push(`... and ${parsed.error.issues.length - MAX_LISTED} more`);
  return { ok: false, problems };
}
