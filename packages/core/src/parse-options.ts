import { InvalidOptionError } from "./invalid-option-error.js";
import { scrubSecrets } from "./secrets/scrub-secrets.js";
import type { z } from "zod";

/**
 * Validates an options object against its zod schema and returns the parsed value, or throws one
 * {@link InvalidOptionError} for the first problem, naming the owner (`usingResilience`), the dotted
 * option path and the value given. Schemas should be `z.strictObject` so a misspelt key is refused
 * with the list of known keys instead of being ignored. Call it once, where the options are given
 * (a builder method, a plugin factory, `createAgent`), never per tool call.
 *
 * @example
 * ```ts
 * const schema = z.strictObject({ limit: z.int().min(1).optional() });
 * const options = parseOptions("usingBulkhead", schema, { limit: 4 });
 * ```
 * Part of `@needlework/core/kit`.
 */
export function parseOptions<S extends z.ZodType>(owner: string, schema: S, value: unknown): z.output<S> {
  // Own properties only, in and out: zod reads a key through the prototype chain, so a polluted
  // Object.prototype would supply (or, for a strict object, refuse) options nobody gave.
  const handed = new Set<object>();
  const parsed = schema.safeParse(ownSnapshot(value ?? {}, 0, handed));
  if (parsed.success) return ownOutput(parsed.data, handed, 0) as z.output<S>;
  const { issue, path } = mostSpecific(parsed.error.issues[0]!, []);
  if (issue.code === "unrecognized_keys") {
    const key = issue.keys[0]!;
    const option = [...path, key].join(".");
    const known = knownKeys(schema, path);
    const list = known.length > 0 ? ` Known options: ${known.join(", ")}.` : "";
    throw new InvalidOptionError(
      option,
      keepable(valueAt(value, [...path, key]), option),
      `${owner}: unknown option '${option}'.${list}`,
    );
  }
  const option = path.join(".");
  const given = valueAt(value, path);
  const where = option === "" ? "options" : `option '${option}'`;
  const message = `${owner}: ${where} ${issue.message} (got ${describe(given, option)}).`;
  throw new InvalidOptionError(option, keepable(given, option), message);
}

/** True for an object literal (or a null-prototype object): an options bag, not a value with a class. */
function isPlain(value: object): boolean {
  const prototype = Object.getPrototypeOf(value) as unknown;
  return prototype === Object.prototype || prototype === null;
}

const hasFunction = (value: object): boolean =>
  Object.keys(value).some((key) => typeof (value as Record<string, unknown>)[key] === "function");

/**
 * The options as their own properties say: options bags (object literals, arrays) copied with own
 * enumerable keys only, as null-prototype objects. A nested object with methods (a sink, a logger)
 * is a value the caller keeps using: it passes as it is (its identity and `this` stay the
 * caller's). Every object handed to the schema is remembered in `given`.
 */
function ownSnapshot(value: unknown, depth: number, given: Set<object>): unknown {
  if (typeof value !== "object" || value === null || depth > 32) return value;
  let copy: object;
  if (Array.isArray(value)) copy = value.map((item) => ownSnapshot(item, depth + 1, given));
  else if (!isPlain(value) || (depth > 0 && hasFunction(value))) copy = value;
  else {
    const own = Object.create(null) as Record<string, unknown>;
    for (const key of Object.keys(value))
      own[key] = ownSnapshot((value as Record<string, unknown>)[key], depth + 1, given);
    copy = own;
  }
  given.add(copy);
  return copy;
}

/**
 * The schema's output with every object the schema made (not one it was given) as a null-prototype
 * copy: reading an option nobody gave is `undefined`, never a prototype's value.
 */
function ownOutput(value: unknown, given: ReadonlySet<object>, depth: number): unknown {
  if (typeof value !== "object" || value === null || given.has(value) || depth > 32) return value;
  if (Array.isArray(value)) return value.map((item) => ownOutput(item, given, depth + 1));
  if (!isPlain(value)) return value;
  const own = Object.create(null) as Record<string, unknown>;
  for (const key of Object.keys(value)) own[key] = ownOutput((value as Record<string, unknown>)[key], given, depth + 1);
  return own;
}

/**
 * Compile-time check that an options schema and the public options interface agree: `true` when both
 * have the same keys and every value the interface allows has the schema's input type. Nested objects
 * need their own check. Use it as `true satisfies SchemaMatches<typeof schema, Options>;`.
 *
 * @example
 * ```ts
 * const schema = z.strictObject({ limit: z.int().optional() });
 * true satisfies SchemaMatches<typeof schema, { readonly limit?: number }>;
 * ```
 * Part of `@needlework/core/kit`.
 */
export type SchemaMatches<S extends z.ZodType, T> = [T] extends [z.input<S>]
  ? [Exclude<keyof T, keyof z.input<S>> | Exclude<keyof z.input<S>, keyof T>] extends [never]
    ? true
    : false
  : false;

type Issue = z.core.$ZodIssue;

/**
 * The issue that says what is wrong. A union's own issue says only that no alternative matched
 * (`retry: false | { ... }` given `{ maxAttempts: 2.5 }`); when the value has the outer type of
 * exactly one alternative, that alternative's first issue, below it, names the option.
 */
function mostSpecific(issue: Issue, prefix: readonly PropertyKey[]): { issue: Issue; path: string[] } {
  const path = [...prefix, ...issue.path];
  if (issue.code === "invalid_union") {
    const matched = issue.errors.filter((issues) => issues.some((i) => !rejectsOuterType(i)));
    if (matched.length === 1) return mostSpecific(matched[0]![0]!, path);
  }
  return { issue, path: path.map(String) };
}

/** An issue about the value itself (not one of its keys) being of the wrong kind. */
function rejectsOuterType(issue: Issue): boolean {
  return (
    issue.path.length === 0 &&
    (issue.code === "invalid_type" || issue.code === "invalid_value" || issue.code === "invalid_union")
  );
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
  return Object.keys(shapeOf(path.reduce(childAt, schema as unknown)) ?? {});
}

interface SchemaNode {
  readonly def?: { type?: string; innerType?: unknown; element?: unknown; options?: unknown[] };
  readonly shape?: Record<string, unknown>;
}

/** The schema itself below optional, default, nullable and readonly wrappers. */
function unwrap(schema: unknown): SchemaNode | undefined {
  let s = schema as SchemaNode | undefined;
  while (s?.def?.innerType !== undefined) s = s.def.innerType as SchemaNode;
  return s;
}

/** The schema of `key` inside `schema`: an object's property, an array's element, or either in a union. */
function childAt(schema: unknown, key: string): unknown {
  const s = unwrap(schema);
  if (s?.def?.type === "array") return s.def.element;
  if (s?.def?.type === "union") return s.def.options?.map((o) => childAt(o, key)).find((c) => c !== undefined);
  return s?.shape?.[key];
}

function shapeOf(schema: unknown): Record<string, unknown> | undefined {
  const s = unwrap(schema);
  if (s?.def?.type === "union") return s.def.options?.map(shapeOf).find((shape) => shape !== undefined);
  return typeof s?.shape === "object" && s.shape !== null ? s.shape : undefined;
}

/**
 * Options that hold a credential: a message never shows their value, however short (a too-short
 * `checkpointSecret` is still someone's key). Other strings pass core's secret detectors.
 */
const CREDENTIAL_OPTION = /secret|password|passphrase|credential|api_?key|private_?key/i;

/** The value an error may keep: never a credential's, which a logger serialising the error would print. */
function keepable(value: unknown, option: string): unknown {
  return typeof value === "string" && CREDENTIAL_OPTION.test(option) ? REDACTED_CREDENTIAL : value;
}
const REDACTED_CREDENTIAL = "[REDACTED:secret]";

function describe(value: unknown, option: string): string {
  if (typeof value === "string") {
    if (CREDENTIAL_OPTION.test(option)) return `a string of ${plural(value.length, "character")}`;
    return scrubSecrets(JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value));
  }
  if (typeof value === "function") return "a function";
  if (Array.isArray(value)) return "an array";
  if (typeof value === "object" && value !== null) return "an object";
  return String(value);
}

/** `3 keys`, `1 key`. */
function plural(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`;
}
