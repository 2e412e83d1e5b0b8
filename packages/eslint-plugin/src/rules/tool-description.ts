import type { TSESTree } from "@typescript-eslint/utils";
import { allFields, chainDescription, inputSchema, moduleNames, propertyOf, staticString, toolMethod } from "../ast.js";
import { createRule } from "../create-rule.js";
import { toolNameOf } from "./tool-name.js";

/** `needlework/tool-description`: a tool or an input field the model gets no description of (NW003). */
export const toolDescription = createRule({
  name: "tool-description",
  meta: {
    type: "problem",
    docs: {
      description: "Require a description on every @AgentFunction and on every field of its input schema",
      buildDiagnostic: "NW003",
    },
    schema: [],
    messages: {
      missingTool:
        "@AgentFunction '{{tool}}' has no `description`: the model reads it to decide when to call the tool. Add `description: \"...\"` (NW003).",
      blankTool: "@AgentFunction '{{tool}}' has a blank `description`: say what the tool does (NW003).",
      missingField:
        "Input field '{{field}}' of tool '{{tool}}' has no description: add .describe(\"...\") so the model knows what to pass (NW003).",
      blankField: "Input field '{{field}}' of tool '{{tool}}' has a blank description (NW003).",
    },
  },
  defaultOptions: [],
  create(context) {
    const names = moduleNames(context);
    const check = (member: TSESTree.MethodDefinition | TSESTree.PropertyDefinition): void => {
      const tool = toolMethod(context, member, names);
      if (!tool?.options) return;
      const toolName = toolNameOf(tool);
      const description = propertyOf(tool.options, "description");
      if (!description) context.report({ node: tool.decorator, messageId: "missingTool", data: { tool: toolName } });
      else if (staticString(description.value)?.trim() === "")
        context.report({ node: description, messageId: "blankTool", data: { tool: toolName } });
      const schema = inputSchema(tool);
      if (!schema) return;
      for (const field of allFields(context, schema, names)) {
        if (!field.chain) continue;
        const found = chainDescription(field.chain);
        if (!found)
          context.report({
            node: field.property,
            messageId: "missingField",
            data: { field: field.path, tool: toolName },
          });
        else if (found.text?.trim() === "")
          context.report({
            node: field.property,
            messageId: "blankField",
            data: { field: field.path, tool: toolName },
          });
      }
    };
    return { MethodDefinition: check, PropertyDefinition: check };
  },
});
