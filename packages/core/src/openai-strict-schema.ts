/** A JSON Schema object (the same shape as tool-definition's `JsonSchema`, declared here to keep this file a leaf). */
type JsonSchema = { [key: string]: unknown };

/*
 * OpenAI's strict subset of JSON Schema, as the Structured Outputs guide states it
 * (https://platform.openai.com/docs/guides/structured-outputs, "Supported schemas"):
 * - types string, number, integer, boolean, object, array, enum (and const), anyOf; `$defs`/`$ref`;
 * - every object lists all its properties in `required` and sets `additionalProperties: false`;
 * - the root is an object, not `anyOf`;
 * - string keywords: `pattern` and `format` (date-time, time, date, duration, email, hostname,
 *   ipv4, ipv6, uuid) only. `minLength`/`maxLength` are NOT in the list, so a schema using them is
 *   sent non-strict: the model still reads them, and the invoker still enforces them;
 * - number keywords: multipleOf, maximum, exclusiveMaximum, minimum, exclusiveMinimum;
 * - array keywords: minItems, maxItems (no `prefixItems`, `contains`, `uniqueItems`).
 * Anything else falls back to non-strict, with the reason, rather than risk a 400 from the API.
 */

const ANNOTATIONS = new Set(["description", "title"]);
const STRUCTURE = new Set([
  "type",
  "properties",
  "required",
  "additionalProperties",
  "items",
  "anyOf",
  "enum",
  "const",
  "$ref",
  "$defs",
  "definitions",
]);
const CONSTRAINTS = new Set([
  "pattern",
  "format",
  "multipleOf",
  "maximum",
  "exclusiveMaximum",
  "minimum",
  "exclusiveMinimum",
  "minItems",
  "maxItems",
]);
const FORMATS = new Set(["date-time", "time", "date", "duration", "email", "hostname", "ipv4", "ipv6", "uuid"]);
/** Keywords that change nothing the API checks and are dropped from the strict copy. */
const DROPPED = new Set(["default", "$schema", "$id", "examples", "$comment", "readOnly", "writeOnly", "deprecated"]);

/** What {@link toOpenAIStrictSchema} returns: the strict copy, or why there is none. */
export type OpenAIStrictResult =
  | { readonly strict: JsonSchema; readonly reasons?: undefined }
  | { readonly strict?: undefined; readonly reasons: readonly string[] };

type Node = { [key: string]: unknown };

function isNode(value: unknown): value is Node {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** `at` is a JSON-pointer-like path for messages: "" is the root. */
function convert(schema: unknown, at: string, reasons: string[]): unknown {
  const where = at === "" ? "the root" : `'${at}'`;
  if (!isNode(schema)) {
    reasons.push(
      `${where} is ${schema === false ? "false" : "not a schema object"} (OpenAI strict mode needs a typed schema here)`,
    );
    return undefined;
  }
  const out: Node = {};
  for (const [key, value] of Object.entries(schema)) {
    if (DROPPED.has(key)) continue;
    if (key === "oneOf") {
      // zod writes discriminatedUnion as oneOf; its branches exclude each other, so anyOf means the same.
      out.anyOf = convertList(value, `${at}/oneOf`, reasons);
    } else if (key === "anyOf") {
      out.anyOf = convertList(value, `${at}/anyOf`, reasons);
    } else if (key === "properties" && isNode(value)) {
      out.properties = Object.fromEntries(
        Object.entries(value).map(([name, sub]) => [name, convert(sub, `${at}/${name}`, reasons)]),
      );
    } else if (key === "items") {
      out.items = convert(value, `${at}/items`, reasons);
    } else if ((key === "$defs" || key === "definitions") && isNode(value)) {
      out[key] = Object.fromEntries(
        Object.entries(value).map(([name, sub]) => [name, convert(sub, `${at}/${key}/${name}`, reasons)]),
      );
    } else if (key === "format" && !FORMATS.has(String(value))) {
      reasons.push(`${where} uses format '${String(value)}', which OpenAI strict mode does not support`);
    } else if (STRUCTURE.has(key) || CONSTRAINTS.has(key) || ANNOTATIONS.has(key)) {
      out[key] = value;
    } else {
      reasons.push(
        `${where} uses '${key}'${key === "prefixItems" ? " (a z.tuple)" : ""}, which is outside OpenAI's strict subset`,
      );
    }
  }
  if (
    out.type === undefined &&
    out.anyOf === undefined &&
    out.enum === undefined &&
    out.const === undefined &&
    out.$ref === undefined
  ) {
    reasons.push(
      `${where} has no type (z.date(), z.any() or z.unknown() give {}), which OpenAI strict mode does not accept`,
    );
  }
  if (out.type === "object" || out.properties !== undefined) {
    const names = Object.keys(isNode(out.properties) ? out.properties : {});
    const required = Array.isArray(out.required) ? out.required : [];
    const optional = names.filter((n) => !required.includes(n));
    if (optional.length > 0)
      reasons.push(
        `${where} has optional field(s) ${optional.map((n) => `'${n}'`).join(", ")} (use .nullable() instead of .optional() or .default())`,
      );
    if (out.additionalProperties !== undefined && out.additionalProperties !== false)
      reasons.push(`${where} is an open object (additionalProperties); strict mode needs closed objects`);
    out.additionalProperties = false;
    out.required = names;
  }
  return out;
}

function convertList(value: unknown, at: string, reasons: string[]): unknown[] {
  if (!Array.isArray(value)) {
    reasons.push(`'${at}' is not a list of schemas`);
    return [];
  }
  return value.map((sub, i) => convert(sub, `${at}/${i}`, reasons));
}

/**
 * A copy of a tool's parameter schema inside OpenAI's strict subset (`oneOf` rewritten to
 * `anyOf`, defaults dropped, every object closed), or every reason it cannot be strict.
 *
 * @example
 * ```ts
 * const result = toOpenAIStrictSchema({ type: "object", properties: { at: {} }, required: ["at"] });
 * result.reasons; // ["'/at' has no type (z.date(), z.any() or z.unknown() give {}), ..."]
 * ```
 */
export function toOpenAIStrictSchema(parameters: JsonSchema): OpenAIStrictResult {
  const reasons: string[] = [];
  if (parameters.type !== "object")
    reasons.push("the root is not an object (OpenAI strict mode needs an object at the root, not anyOf)");
  const strict = convert(parameters, "", reasons) as JsonSchema;
  return reasons.length === 0 ? { strict } : { reasons: [...new Set(reasons)] };
}
