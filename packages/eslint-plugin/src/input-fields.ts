import type { TSESLint, TSESTree } from "@typescript-eslint/utils";
import { allFields, inputSchema, moduleNames, type ToolMethod, toolMethod, type ZodField } from "./ast.js";

type Context = Readonly<TSESLint.RuleContext<string, readonly unknown[]>>;

/**
 * The listeners of a rule that judges each input field of each tool in the file: `visit` gets every
 * field with its tool, the fields of nested objects included (and, with `arrayItems`, of objects in
 * arrays: see {@link allFields}).
 *
 * @example
 * create(context) {
 *   return inputFieldListeners(context, (field, tool) => { if (field.name === "password") context.report(...); });
 * }
 */
export function inputFieldListeners(
  context: Context,
  visit: (field: ZodField, tool: ToolMethod) => void,
  options: { readonly arrayItems?: boolean } = {},
): TSESLint.RuleListener {
  const names = moduleNames(context);
  const check = (member: TSESTree.MethodDefinition | TSESTree.PropertyDefinition): void => {
    const tool = toolMethod(context, member, names);
    const schema = tool && inputSchema(tool);
    if (!tool || !schema) return;
    for (const field of allFields(context, schema, names, options)) visit(field, tool);
  };
  return { MethodDefinition: check, PropertyDefinition: check };
}
