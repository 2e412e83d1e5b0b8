import { createRequire } from "node:module";
import { ToolDefinitionError } from "./errors.js";
import type { JsonSchema } from "./tool-definition.js";

/** One way a value fails a JSON Schema: where (a path of keys and indexes) and what. @internal */
export interface JsonSchemaIssue {
  readonly path: readonly (string | number)[];
  readonly message: string;
}

/** A compiled JSON Schema: the issues of a value, empty when it matches. @internal */
export type JsonSchemaCheck = (value: unknown) => readonly JsonSchemaIssue[];

interface AjvError {
  readonly instancePath: string;
  readonly keyword: string;
  readonly message?: string;
  readonly params: Record<string, unknown>;
}
interface AjvValidate {
  (value: unknown): boolean;
  errors?: readonly AjvError[] | null;
}
interface AjvInstance {
  compile(schema: object): AjvValidate;
}
type AjvClass = new (options: Record<string, unknown>) => AjvInstance;

// ajv is a maintained validator for every draft a server may send (draft-07, 2019-09, 2020-12:
// conditionals, `$ref`s, `patternProperties`, formats), which zod's JSON Schema import is not
// (it refuses `if`/`then`/`else`). It is loaded on the first schema compiled, not when core is
// imported: most programs never define a tool by JSON Schema. The `require` comes from this
// module's own location (`import.meta.url` in ESM, `__filename` in the CommonJS build).
let load: NodeJS.Require | undefined;
const loader = (): NodeJS.Require =>
  (load ??= createRequire(typeof __filename === "string" && __filename !== "" ? __filename : import.meta.url));

const instances = new Map<string, AjvInstance>();

/** The ajv build for a schema's `$schema`: draft-07 (and older), 2019-09, else 2020-12 (MCP's default). */
function ajvFor(schema: JsonSchema): AjvInstance {
  const declared = typeof schema.$schema === "string" ? schema.$schema : "";
  const draft = /draft-0[4-7]/.test(declared)
    ? "ajv"
    : declared.includes("2019-09")
      ? "ajv/dist/2019"
      : "ajv/dist/2020";
  let ajv = instances.get(draft);
  if (ajv === undefined) {
    const require = loader();
    const module = require(draft) as { default?: AjvClass } & AjvClass;
    const Ajv = module.default ?? module;
    // strict: false: a remote server's schema may carry keywords ajv does not know (`x-...`, `example`);
    // they annotate, they do not validate. allErrors: the model hears every problem at once.
    ajv = new Ajv({ strict: false, allErrors: true, validateFormats: true, unicodeRegExp: false });
    const formats = require("ajv-formats") as { default?: (ajv: AjvInstance) => void } & ((ajv: AjvInstance) => void);
    (formats.default ?? formats)(ajv);
    instances.set(draft, ajv);
  }
  return ajv;
}

function pathOf(instancePath: string): (string | number)[] {
  if (instancePath === "") return [];
  return instancePath
    .slice(1)
    .split("/")
    .map((part) => part.replaceAll("~1", "/").replaceAll("~0", "~"))
    .map((part) => (/^\d+$/.test(part) ? Number(part) : part));
}

/** A model-readable sentence for one ajv error; an unknown key reads as the invoker's own report does. */
function issueOf(error: AjvError): JsonSchemaIssue {
  const path = pathOf(error.instancePath);
  if (error.keyword === "additionalProperties" && typeof error.params.additionalProperty === "string")
    return { path, message: `unknown field '${error.params.additionalProperty}' (remove it)` };
  if (error.keyword === "required" && typeof error.params.missingProperty === "string")
    return { path: [...path, error.params.missingProperty], message: "required" };
  return { path, message: error.message ?? `fails '${error.keyword}'` };
}

/**
 * Compiles a JSON Schema with ajv (the draft its `$schema` names; 2020-12 when it names none).
 * Throws a `ToolDefinitionError` naming `where` when the schema itself is invalid. The root `$id`
 * is dropped, so two tools may publish schemas with one `$id`. @internal
 *
 * @example
 * ```ts
 * const check = compileJsonSchema({ type: "object", properties: { id: { type: "integer" } } }, "tool 'get'");
 * check({ id: "x" }); // [{ path: ["id"], message: "must be integer" }]
 * ```
 */
export function compileJsonSchema(schema: JsonSchema, where: string): JsonSchemaCheck {
  const { $id: _id, ...rest } = schema;
  let validate: AjvValidate;
  try {
    validate = ajvFor(schema).compile(rest);
  } catch (error) {
    // ajv's message names the keyword and the schema path: the schema's author needs it.
    const reason = error instanceof Error ? error.message : "it does not compile";
    throw new ToolDefinitionError(`${where}: the JSON Schema is invalid (${reason.slice(0, 300)}).`);
  }
  // An `if` error only says a `then`/`else` failed: the errors under it name what is wrong.
  return (value) => (validate(value) ? [] : (validate.errors ?? []).filter((e) => e.keyword !== "if").map(issueOf));
}
