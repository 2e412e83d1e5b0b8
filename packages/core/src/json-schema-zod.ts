import { z } from "zod";
import type { ToolInputSchema } from "./agent-function.options.js";
import { ToolDefinitionError } from "./errors.js";
import { compileJsonSchema, type JsonSchemaIssue } from "./json-schema-check.js";
import type { JsonSchema } from "./tool-definition.js";

type RefineContext = { addIssue(issue: { code: "custom"; path: (string | number)[]; message: string }): void };

function report(issues: readonly JsonSchemaIssue[], ctx: RefineContext): void {
  for (const issue of issues) ctx.addIssue({ code: "custom", path: [...issue.path], message: issue.message });
}

/**
 * A tool's `input` from a JSON Schema: a zod object that ajv validates (see `compileJsonSchema`), so
 * the invoker, approvals and hooks read it like any other tool's. Its shape lists the schema's
 * top-level properties (each `unknown`, optional) in the schema's order, for displays that follow
 * the schema's key order; unknown keys are the schema's to refuse (`additionalProperties`). @internal
 *
 * @example
 * ```ts
 * const input = jsonSchemaInput({ type: "object", properties: { id: { type: "integer" } } }, "tool 'get'");
 * input.safeParse({ id: "x" }).success; // false
 * ```
 */
export function jsonSchemaInput(schema: JsonSchema, where: string): ToolInputSchema {
  if (schema.type !== undefined && schema.type !== "object")
    throw new ToolDefinitionError(
      `${where}: \`inputSchema\` must describe an object (type "object"), not ${JSON.stringify(schema.type)}.`,
    );
  const check = compileJsonSchema(schema, where);
  const properties = typeof schema.properties === "object" && schema.properties !== null ? schema.properties : {};
  const shape = Object.fromEntries(Object.keys(properties).map((key) => [key, z.unknown().optional()]));
  return z.looseObject(shape).superRefine((value, ctx) => report(check(value), ctx as unknown as RefineContext));
}

/**
 * A tool's `output` from a JSON Schema: any value, validated by ajv (a mismatch is `OUTPUT_INVALID`). @internal
 *
 * @example
 * ```ts
 * const output = jsonSchemaOutput({ type: "object", required: ["total"] }, "tool 'sum'");
 * ```
 */
export function jsonSchemaOutput(schema: JsonSchema, where: string): z.ZodType {
  const check = compileJsonSchema(schema, where);
  return z.unknown().superRefine((value, ctx) => report(check(value), ctx as unknown as RefineContext));
}
