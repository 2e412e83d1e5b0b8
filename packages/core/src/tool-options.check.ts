import type { z } from "zod";

const FAILURE_FORMATS: ReadonlySet<string> = new Set(["detect", "off", "jsend", "graphql"]);

/** Whether `value` is a zod v4 schema. @internal */
export function isZodSchema(value: unknown): value is z.ZodType {
  return typeof value === "object" && value !== null && "_zod" in value;
}

/**
 * Checks the options every way of declaring a tool shares (`@AgentFunction`, `defineTool`): the
 * description, name, output, middleware, flags, effects, lists, limits, compensation, error rules
 * and the failure detector. `fail` throws, naming the tool. @internal
 *
 * @example
 * ```ts
 * checkToolOptions(options, (problem) => { throw new ToolDefinitionError(`defineTool 'x': ${problem}`); });
 * ```
 */
export function checkToolOptions(o: Record<string, unknown>, fail: (problem: string) => never): void {
  if (typeof o.description !== "string" || o.description.trim() === "")
    fail("`description` must be a non-empty string: the model reads it to choose the tool.");
  if (o.name !== undefined && (typeof o.name !== "string" || o.name.trim() === ""))
    fail("`name` must be a non-empty string.");
  if (o.output !== undefined && !isZodSchema(o.output)) fail("`output` must be a zod schema.");
  if (
    o.middleware !== undefined &&
    (!Array.isArray(o.middleware) || !o.middleware.every((m) => typeof m === "function"))
  )
    fail("`middleware` must be an array of middleware functions.");
  for (const flag of ["idempotent", "readOnly", "requiresApproval", "sensitive"] as const) {
    if (o[flag] !== undefined && typeof o[flag] !== "boolean") fail(`\`${flag}\` must be a boolean.`);
  }
  if (o.reads !== undefined && o.reads !== "trusted" && o.reads !== "untrusted")
    fail('`reads` must be "trusted" or "untrusted".');
  if (o.effects !== undefined && o.effects !== "none" && o.effects !== "internal" && o.effects !== "external")
    fail('`effects` must be "none", "internal" or "external".');
  if (o.readOnly === true && o.effects !== undefined && o.effects !== "none")
    fail(
      `\`readOnly: true\` says the tool changes nothing, but \`effects\` is "${String(o.effects)}": drop one of them.`,
    );
  for (const list of ["dependsOn", "tags"] as const) {
    const value = o[list];
    if (value !== undefined && (!Array.isArray(value) || !value.every((v) => typeof v === "string" && v !== "")))
      fail(`\`${list}\` must be an array of non-empty strings.`);
  }
  if (
    o.timeoutMs !== undefined &&
    (typeof o.timeoutMs !== "number" || !Number.isFinite(o.timeoutMs) || o.timeoutMs <= 0)
  )
    fail("`timeoutMs` must be a positive, finite number of milliseconds.");
  if (
    o.maxResultTokens !== undefined &&
    (typeof o.maxResultTokens !== "number" || !Number.isInteger(o.maxResultTokens) || o.maxResultTokens <= 0)
  )
    fail("`maxResultTokens` must be a positive integer.");
  if (o.compensate !== undefined) {
    const c = o.compensate as { tool?: unknown; arguments?: unknown } | string;
    const ok =
      typeof c === "string"
        ? c !== ""
        : typeof c === "object" &&
          c !== null &&
          typeof c.tool === "string" &&
          c.tool !== "" &&
          (c.arguments === undefined || typeof c.arguments === "function");
    if (!ok) fail("`compensate` must be a tool name or `{ tool, arguments?: (input, data) => args }`.");
  }
  if (
    o.errors !== undefined &&
    (!Array.isArray(o.errors) ||
      !o.errors.every(
        (r) =>
          typeof r === "object" &&
          r !== null &&
          "match" in r &&
          typeof (r as { code?: unknown }).code === "string" &&
          typeof (r as { message?: unknown }).message === "string",
      ))
  ) {
    fail("`errors` must be an array of `{ match, code, message }` rules.");
  }
  if (o.failures !== undefined && !FAILURE_FORMATS.has(o.failures as string) && typeof o.failures !== "function")
    fail('`failures` must be "detect", "off", "jsend", "graphql" or a function (value) => failure | undefined.');
}
