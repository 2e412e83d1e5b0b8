import { noStringifiedResult } from "../../src/rules/no-stringified-result.js";
import { javaScript, ruleTester, runsOnJavaScript } from "../rule-tester.js";
import { tools } from "../sources.js";

const tool = (body: string) =>
  tools(`  @AgentFunction({ description: "Gets.", input: z.object({}) })
${body}`);

ruleTester().run("no-stringified-result", noStringifiedResult, {
  valid: [
    tool(`  async get() {
    const body = JSON.stringify({ a: 1 }); // sent somewhere else, not returned
    const render = () => JSON.stringify(body);
    return ToolResult.ok({ sent: body.length, text: render() });
  }`),
    // Not a tool method.
    `class Formatter { format(value: unknown) { return JSON.stringify(value); } }`,
    tool("  get() { return { id: 1 }; }"),
    javaScript(`import { AgentFunction } from "@needlework/core";
class T { @AgentFunction({ description: "G.", input: {} }) get() { return { id: 1 }; } }`),
  ],
  invalid: [
    {
      code: tool(`  async get() {
    const order = { id: "ORD-1", lines: [] };
    return JSON.stringify(order);
  }`),
      errors: [
        {
          messageId: "stringified",
          line: 9,
          suggestions: [
            {
              messageId: "returnValue",
              output: tool(`  async get() {
    const order = { id: "ORD-1", lines: [] };
    return order;
  }`),
            },
          ],
        },
      ],
    },
    {
      code: tool("  list() { return ToolResult.ok(JSON.stringify([1, 2], null, 2)); }"),
      errors: [{ messageId: "stringified", suggestions: [] }],
    },
    {
      code: tool("  get = () => JSON.stringify({ id: 1 });"),
      errors: [
        {
          messageId: "stringified",
          suggestions: [{ messageId: "returnValue", output: tool("  get = () => ({ id: 1 });") }],
        },
      ],
    },
    {
      code: tool("  async get() { return await JSON.stringify({ id: 1 }); }"),
      errors: [
        {
          messageId: "stringified",
          suggestions: [{ messageId: "returnValue", output: tool("  async get() { return await { id: 1 }; }") }],
        },
      ],
    },
    {
      code: tool("  get() { if (Math.random() > 1) return null; return ToolResult.ok(JSON.stringify(this)); }"),
      errors: [
        {
          messageId: "stringified",
          suggestions: [
            {
              messageId: "returnValue",
              output: tool("  get() { if (Math.random() > 1) return null; return ToolResult.ok(this); }"),
            },
          ],
        },
      ],
    },
    {
      ...javaScript(`import { AgentFunction } from "@needlework/core";
class T { @AgentFunction({ description: "G.", input: {} }) get() { return JSON.stringify([]); } }`),
      errors: [
        {
          messageId: "stringified",
          suggestions: [
            {
              messageId: "returnValue",
              output: `import { AgentFunction } from "@needlework/core";
class T { @AgentFunction({ description: "G.", input: {} }) get() { return []; } }`,
            },
          ],
        },
      ],
    },
  ],
});

runsOnJavaScript("no-stringified-result", noStringifiedResult);
