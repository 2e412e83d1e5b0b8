import type { TSESTree } from "@typescript-eslint/utils";
import { moduleNames, propertyOf, staticString, toolMethod } from "../ast.js";
import { createRule } from "../create-rule.js";

/**
 * `needlework/no-blank-tool-name`: `@AgentFunction({ name: "" })`, or a name of only whitespace.
 * `@AgentFunction` refuses it when the class is decorated (`ToolDefinitionError`: "`name` must be a
 * non-empty string"), so the module fails to load.
 */
export const noBlankToolName = createRule({
  name: "no-blank-tool-name",
  meta: {
    type: "problem",
    hasSuggestions: true,
    docs: {
      description: 'Disallow a blank published tool name: `@AgentFunction({ name: "" })` or whitespace',
    },
    schema: [],
    messages: {
      blank:
        "The tool name is blank: @AgentFunction refuses it when the class loads (ToolDefinitionError: `name` must be a non-empty string). Name the tool, or drop `name` to publish it as '{{method}}'.",
      dropName: "Drop `name`: publish the tool under its method's name, '{{method}}'.",
    },
  },
  defaultOptions: [],
  create(context) {
    const names = moduleNames(context);
    const sourceCode = context.sourceCode;
    const check = (member: TSESTree.MethodDefinition | TSESTree.PropertyDefinition): void => {
      const tool = toolMethod(context, member, names);
      const option = tool?.options && propertyOf(tool.options, "name");
      if (!option || staticString(option.value)?.trim() !== "") return;
      const method = sourceCode.getText(member.key);
      const after = sourceCode.getTokenAfter(option);
      context.report({
        node: option.value,
        messageId: "blank",
        data: { method },
        suggest: member.computed
          ? []
          : [
              {
                messageId: "dropName",
                data: { method },
                // The property and the comma after it, when there is one.
                fix: (fixer) =>
                  fixer.removeRange([
                    option.range[0],
                    after?.value === ","
                      ? sourceCode.getTokenAfter(after, { includeComments: true })!.range[0]
                      : option.range[1],
                  ]),
              },
            ],
      });
    };
    return { MethodDefinition: check, PropertyDefinition: check };
  },
});
