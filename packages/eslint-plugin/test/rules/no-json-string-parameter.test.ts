import { noJsonStringParameter } from "../../src/rules/no-json-string-parameter.js";
import { javaScript, ruleTester, runsOnJavaScript } from "../rule-tester.js";
import { tools } from "../sources.js";

/** A tool `update` whose input holds `fields` (the fields start on line 6). */
const input = (fields: string) =>
  tools(`  @AgentFunction({ description: "Updates.", input: z.object({ ${fields} }) })
  update(input: object) { return input; }`);

ruleTester().run("no-json-string-parameter", noJsonStringParameter, {
  valid: [
    input('changes: z.object({ email: z.string().describe("New email.") }).describe("Fields to set.")'),
    // A string about JSON that is not JSON itself.
    input('format: z.enum(["json", "csv"]).describe("Output format: json or csv.")'),
    // A structured field described as JSON is not a string.
    input('payload: z.object({ id: z.string().describe("Id.") }).describe("The order, as JSON.")'),
    // "jsonPath" is not the word json.
    input('path: z.string().describe("A JSONPath expression, like $.items[0].")'),
    javaScript(`import { AgentFunction } from "@needlework/core";
import { z } from "zod";
class T { @AgentFunction({ description: "U.", input: z.object({ a: z.number().describe("JSON number.") }) }) u() {} }`),
  ],
  invalid: [
    {
      code: input(
        'id: z.string().describe("Contact id."), changes: z.string().describe("The fields to change, as a JSON object.")',
      ),
      errors: [{ messageId: "jsonString", line: 6, data: { field: "changes", tool: "update" } }],
    },
    {
      code: input('payload: z.string().describe("Raw JSON of the order.")'),
      errors: [{ messageId: "jsonString", data: { field: "payload", tool: "update" } }],
    },
    {
      code: input('blob: z.string().describe("The serialized cart.")'),
      errors: [{ messageId: "jsonString", data: { field: "blob", tool: "update" } }],
    },
    {
      code: input('body: z.string().meta({ description: "Stringified request body." })'),
      errors: [{ messageId: "jsonString", data: { field: "body", tool: "update" } }],
    },
    {
      // Nested objects are walked, and .optional() wrappers looked through.
      code: input(
        'order: z.object({ extra: z.string().optional().describe("Extra data as json.") }).describe("Order.")',
      ),
      errors: [{ messageId: "jsonString", data: { field: "order.extra", tool: "update" } }],
    },
    {
      ...javaScript(`import { AgentFunction } from "@needlework/core";
import { z } from "zod";
class T { @AgentFunction({ description: "U.", input: z.object({ a: z.string().describe("A JSON array.") }) }) u() {} }`),
      errors: [{ messageId: "jsonString", data: { field: "a", tool: "u" } }],
    },
  ],
});

runsOnJavaScript("no-json-string-parameter", noJsonStringParameter);
