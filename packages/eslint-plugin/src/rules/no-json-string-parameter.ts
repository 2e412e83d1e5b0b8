import { chainDescription } from "../ast.js";
import { createRule } from "../create-rule.js";
import { inputFieldListeners } from "../input-fields.js";
import { toolNameOf } from "./tool-name.js";

/** The words the build diagnostics read as "this string holds JSON". */
const JSON_WORDS = /\b(json|serialized|stringified)\b/i;

/** `needlework/no-json-string-parameter`: a string field described as JSON (NW004). */
export const noJsonStringParameter = createRule({
  name: "no-json-string-parameter",
  meta: {
    type: "suggestion",
    docs: {
      description: "Disallow string input fields that carry JSON: declare the structure instead",
      buildDiagnostic: "NW004",
    },
    schema: [],
    messages: {
      jsonString:
        "Input field '{{field}}' of tool '{{tool}}' is a string described as JSON: models often get the escaping wrong. Declare its structure with z.object(...) or z.array(...) instead (NW004).",
    },
  },
  defaultOptions: [],
  create(context) {
    return inputFieldListeners(context, (field, tool) => {
      if (field.chain?.base !== "string") return;
      const text = chainDescription(field.chain)?.text;
      if (text !== undefined && JSON_WORDS.test(text))
        context.report({
          node: field.property,
          messageId: "jsonString",
          data: { field: field.path, tool: toolNameOf(tool) },
        });
    });
  },
});
