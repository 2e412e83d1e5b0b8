import type { JsonValue } from "@needlework/core";

/** How much of a value the inferred schema describes. */
interface SchemaLimits {
  /** Levels below the root described; deeper values are `{}`. */
  readonly depth: number;
  /** Items of a list looked at (first ones). */
  readonly sample: number;
  /** Properties of an object described; the rest are counted in `description`. */
  readonly properties: number;
}

type Schema = { [key: string]: JsonValue };

/**
 * A JSON Schema of `value`, bounded: a list's items are described from its first `sample` items
 * (merged), objects by at most `properties` members, and nothing deeper than `depth` levels. A
 * list says its exact length (`minItems` = `maxItems`), so the model knows how far to page.
 * @internal
 */
export function inferSchema(value: unknown, limits: SchemaLimits): Schema {
  return describe(value, limits.depth, limits);
}

function describe(value: unknown, depth: number, limits: SchemaLimits): Schema {
  if (value === null) return { type: "null" };
  switch (typeof value) {
    case "string":
      return { type: "string" };
    case "number":
      return { type: Number.isInteger(value) ? "integer" : "number" };
    case "boolean":
      return { type: "boolean" };
    case "object":
      break;
    default:
      return {};
  }
  if (Array.isArray(value)) {
    const schema: Schema = { type: "array", minItems: value.length, maxItems: value.length };
    if (depth <= 0 || value.length === 0) return schema;
    let items: Schema | undefined;
    for (let i = 0; i < Math.min(value.length, limits.sample); i++) {
      const item = describe(value[i], depth - 1, limits);
      items = items === undefined ? item : merge(items, item);
    }
    return items === undefined ? schema : { ...schema, items };
  }
  const keys = Object.keys(value);
  const schema: Schema = { type: "object" };
  if (depth <= 0) return keys.length === 0 ? schema : { ...schema, description: `${keys.length} members` };
  const properties: Schema = {};
  for (const key of keys.slice(0, limits.properties))
    properties[key] = describe((value as Record<string, unknown>)[key], depth - 1, limits);
  schema.properties = properties;
  if (keys.length > limits.properties)
    schema.description = `${keys.length} members; ${keys.length - limits.properties} more not described`;
  return schema;
}

/** Two schemas of items of one list, as one: shared properties merged, differing types listed. */
function merge(a: Schema, b: Schema): Schema {
  if (JSON.stringify(a) === JSON.stringify(b)) return a;
  const types = new Set([...typesOf(a), ...typesOf(b)]);
  if (types.has("integer") && types.has("number")) types.delete("integer");
  const type: JsonValue = types.size === 1 ? [...types][0]! : [...types];
  if (a.type === "object" && b.type === "object") {
    const properties: Schema = { ...(a.properties as Schema | undefined) };
    for (const [key, value] of Object.entries((b.properties as Schema | undefined) ?? {}))
      properties[key] = Object.hasOwn(properties, key) ? merge(properties[key] as Schema, value as Schema) : value;
    return { type: "object", properties };
  }
  if (a.type === "array" && b.type === "array") {
    const items =
      a.items !== undefined && b.items !== undefined ? merge(a.items as Schema, b.items as Schema) : undefined;
    return items === undefined ? { type: "array" } : { type: "array", items };
  }
  return { type };
}

function typesOf(schema: Schema): string[] {
  const type = schema.type;
  if (typeof type === "string") return [type];
  if (Array.isArray(type)) return type.filter((t): t is string => typeof t === "string");
  return [];
}

/**
 * The items `read_artifact` pages through at the root: a list's length, an object's members, else 1.
 * @internal
 */
export function rootItems(value: unknown): number {
  if (Array.isArray(value)) return value.length;
  if (typeof value === "object" && value !== null) return Object.keys(value).length;
  return 1;
}
