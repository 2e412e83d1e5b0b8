import { InvalidOptionError } from "@needlework/core";
import type { z } from "zod";

/**
 * Validates an options object against its zod schema and returns the parsed value, or throws one
 * {@link InvalidOptionError} for the first problem, naming the owner (`usingResilience`), the dotted
 * option path and the value given. Schemas should be `z.strictObject` so a misspelt key is refused
 * with the list of known keys instead of being ignored.
 *
 * @example
 * ```ts
 * const schema = z.strictObject({ limit: z.int().min(1).optional() });
 * const options = parseOptions("usingBulkhead", schema, { limit: 4 });
 * ```
 * @internal
 */
export function parseOptions<S extends z.ZodType>(owner: string, schema: S, value: unknown): z.output<S> {
  const parsed = schema.safeParse(value ?? {});
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0]!;
  const path = issue.path.map(String);
  if (issue.code === "unrecognized_keys") {
    const key = issue.keys[0]!;
    const option = [...path, key].join(".");
    const known = knownKeys(schema, path);
    const list = known.length > 0 ? ` Known options: ${known.join(", ")}.` : "";
    throw new InvalidOptionError(
      option,
      valueAt(value, [...path, key]),
      `${owner}: unknown option '${option}'.${list}`,
    );
  }
  const option = path.join(".");
  const given = valueAt(value, path);
  const where = option === "" ? "options" : `option '${option}'`;
  throw new InvalidOptionError(option, given, `${owner}: ${where} ${issue.message} (got ${describe(given)}).`);
}

function valueAt(value: unknown, path: readonly string[]): unknown {
  let current = value;
  for (const key of path) {
    if (typeof current !== "object" || current === null || !Object.hasOwn(current, key)) return undefined;
    current = (current as Record<string, unknown>)[key];
  }
  return current;
}

function knownKeys(schema: z.ZodType, path: readonly string[]): string[] {
  let current: unknown = schema;
  for (const key of path) current = shapeOf(current)?.[key];
  return Object.keys(shapeOf(current) ?? {});
}

function shapeOf(schema: unknown): Record<string, unknown> | undefined {
  let s = schema as { def?: { type?: string; innerType?: unknown; options?: unknown[] }; shape?: unknown } | undefined;
  while (s?.def?.innerType !== undefined) s = s.def.innerType as typeof s; // optional, default, nullable
  if (s?.def?.type === "union") s = s.def.options?.find((o) => shapeOf(o) !== undefined) as typeof s;
  return typeof s?.shape === "object" && s.shape !== null ? (s.shape as Record<string, unknown>) : undefined;
}

function describe(value: unknown): string {
  if (typeof value === "string") return JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value);
  if (typeof value === "function") return "a function";
  if (Array.isArray(value)) return "an array";
  if (typeof value === "object" && value !== null) return "an object";
  return String(value);
}
