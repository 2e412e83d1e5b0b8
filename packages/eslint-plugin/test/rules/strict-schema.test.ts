import { strictSchema } from "../../src/rules/strict-schema.js";
import { javaScript, ruleTester, runsOnJavaScript } from "../rule-tester.js";
import { tools } from "../sources.js";

const input = (fields: string) =>
  tools(`  @AgentFunction({ description: "Searches.", input: z.object({ ${fields} }) })
  search(input: object) { return input; }`);

ruleTester().run("strict-schema", strictSchema, {
  valid: [
    input(
      'query: z.string().describe("Words."), limit: z.number().int().min(1).max(50).nullable().describe("At most."), at: z.iso.datetime().describe("When.")',
    ),
    input('kind: z.enum(["a", "b"]).describe("Kind."), tags: z.array(z.string()).describe("Tags.")'),
    input('address: z.strictObject({ city: z.string().describe("City.") }).describe("Address.")'),
    javaScript(`import { AgentFunction } from "@needlework/core";
import { z } from "zod";
class T { @AgentFunction({ description: "S.", input: z.object({ q: z.string().describe("Q.") }) }) s() {} }`),
  ],
  invalid: [
    {
      code: tools(`  @AgentFunction({ description: "Searches.", input: z.object({
    query: z.string().min(1).describe("Words."),
    limit: z.number().optional().describe("At most."),
    since: z.date().describe("From."),
    filters: z.record(z.string(), z.string()).describe("Filters."),
  }) })
  search(input: object) { return input; }`),
      errors: [
        { messageId: "notStrict", line: 7 },
        { messageId: "notStrict", line: 8 },
        { messageId: "notStrict", line: 9 },
        { messageId: "notStrict", line: 10 },
      ],
    },
    {
      // The model fills in the fields of objects in a list too.
      code: tools(`  @AgentFunction({ description: "Places an order.", input: z.object({
    lines: z.array(z.object({ sku: z.string().describe("Sku."), note: z.string().optional().describe("Note.") })).describe("Lines."),
  }) })
  place(input: object) { return input; }`),
      errors: [
        {
          messageId: "notStrict",
          line: 7,
          data: {
            field: "lines[].note",
            tool: "place",
            reason: "is optional (use .nullable() instead of .optional(): strict mode needs every field required)",
          },
        },
      ],
    },
    {
      code: input('page: z.number().int().default(1).describe("Page.")'),
      errors: [
        {
          messageId: "notStrict",
          data: {
            field: "page",
            tool: "search",
            reason: "has a default, which makes it optional (use .nullable() instead)",
          },
        },
      ],
    },
    {
      code: input('site: z.url().describe("Site.")'),
      errors: [
        {
          messageId: "notStrict",
          data: {
            field: "site",
            tool: "search",
            reason: "uses format 'uri', which OpenAI strict mode does not support",
          },
        },
      ],
    },
    {
      code: input(
        'pair: z.tuple([z.string(), z.number()]).describe("A pair."), anything: z.any().describe("Anything.")',
      ),
      errors: [{ messageId: "notStrict" }, { messageId: "notStrict" }],
    },
    {
      ...javaScript(`import { AgentFunction } from "@needlework/core";
import { z } from "zod";
class T { @AgentFunction({ description: "S.", input: z.object({ q: z.string().nullish().describe("Q.") }) }) s() {} }`),
      errors: [
        {
          messageId: "notStrict",
          data: { field: "q", tool: "s", reason: "is optional (.nullish()); use .nullable()" },
        },
      ],
    },
  ],
});

runsOnJavaScript("strict-schema", strictSchema);
