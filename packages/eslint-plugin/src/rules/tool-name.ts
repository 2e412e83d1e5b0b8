import { AST_NODE_TYPES, type TSESTree } from "@typescript-eslint/utils";
import { moduleNames, propertyOf, staticString, type ToolMethod, toolMethod } from "../ast.js";
import { createRule } from "../create-rule.js";

/** Tool names every major provider accepts (OpenAI and Anthropic), as the build diagnostics check. */
const PROVIDER_TOOL_NAME = /^[a-zA-Z0-9_-]{1,64}$/;

/** The name a tool is offered under: its `name` option when written out, else the method's name. */
export function toolNameOf(tool: ToolMethod): string {
  const option = tool.options && staticString(propertyOf(tool.options, "name")?.value);
  if (option !== undefined) return option;
  const key = tool.method.key;
  if (key.type === AST_NODE_TYPES.Identifier) return key.name;
  return staticString(key) ?? "(computed)";
}

/** A name providers accept, for the suggestion: invalid characters become `_`, at most 64 characters. */
function conforming(name: string): string {
  const cleaned = name.replace(/[^a-zA-Z0-9_-]/g, "_").slice(0, 64);
  return cleaned === "" ? "tool" : cleaned;
}

/** `needlework/tool-name`: a tool name OpenAI and Anthropic reject (NW002). */
export const toolName = createRule({
  name: "tool-name",
  meta: {
    type: "problem",
    hasSuggestions: true,
    docs: {
      description: "Require tool names providers accept: ^[a-zA-Z0-9_-]{1,64}$",
      buildDiagnostic: "NW002",
    },
    schema: [],
    messages: {
      invalid:
        "Tool name '{{name}}' would be rejected by OpenAI and Anthropic, which accept ^[a-zA-Z0-9_-]{1,64}$ (NW002).",
      rename: "Name the tool '{{name}}'.",
    },
  },
  defaultOptions: [],
  create(context) {
    const names = moduleNames(context);
    const check = (member: TSESTree.MethodDefinition | TSESTree.PropertyDefinition): void => {
      const tool = toolMethod(context, member, names);
      if (!tool) return;
      const option = tool.options && propertyOf(tool.options, "name");
      if (option) {
        const name = staticString(option.value);
        // A blank name is no-blank-tool-name's: @AgentFunction refuses it before any provider sees it.
        if (name === undefined || name.trim() === "" || PROVIDER_TOOL_NAME.test(name)) return;
        const fixed = conforming(name);
        context.report({
          node: option.value,
          messageId: "invalid",
          data: { name },
          suggest: [
            {
              messageId: "rename",
              data: { name: fixed },
              fix: (fixer) => fixer.replaceText(option.value, JSON.stringify(fixed)),
            },
          ],
        });
        return;
      }
      if (tool.options === undefined && tool.decorator.arguments.length > 0) return; // options not written out
      const name = toolNameOf(tool);
      if (name === "(computed)" || PROVIDER_TOOL_NAME.test(name)) return;
      const fixed = conforming(name);
      const options = tool.options;
      context.report({
        node: member.key,
        messageId: "invalid",
        data: { name },
        suggest: options
          ? [
              {
                messageId: "rename",
                data: { name: fixed },
                // The method keeps its name; the option names the tool.
                fix: (fixer) =>
                  options.properties.length === 0
                    ? fixer.replaceText(options, `{ name: ${JSON.stringify(fixed)} }`)
                    : fixer.insertTextBefore(options.properties[0]!, `name: ${JSON.stringify(fixed)}, `),
              },
            ]
          : [],
      });
    };
    return { MethodDefinition: check, PropertyDefinition: check };
  },
});
