import { toolName } from "../../src/rules/tool-name.js";
import { javaScript, ruleTester, runsOnJavaScript } from "../rule-tester.js";
import { tools } from "../sources.js";

ruleTester().run("tool-name", toolName, {
  valid: [
    tools(`  @AgentFunction({ name: "orders-get_v2", description: "Gets.", input: z.object({}) })
  get() {}`),
    tools(`  @AgentFunction({ description: "Gets.", input: z.object({}) })
  getOrderStatus() {}`),
    // A blank name is no-blank-tool-name's (the decorator refuses it).
    tools(`  @AgentFunction({ name: " ", description: "Gets.", input: z.object({}) })
  get() {}`),
    // Options not written out here are not guessed at.
    tools(`  @AgentFunction(makeOptions())
  "get order"() {}`),
    javaScript(`import { AgentFunction } from "@needlework/core";
class T { @AgentFunction({ name: "get_order", description: "Gets.", input: {} }) get() {} }`),
  ],
  invalid: [
    {
      code: tools(`  @AgentFunction({ name: "orders.get status", description: "Gets.", input: z.object({}) })
  get() {}`),
      errors: [
        {
          messageId: "invalid",
          line: 6,
          suggestions: [
            {
              messageId: "rename",
              data: { name: "orders_get_status" },
              output: tools(`  @AgentFunction({ name: "orders_get_status", description: "Gets.", input: z.object({}) })
  get() {}`),
            },
          ],
        },
      ],
    },
    {
      code: tools(`  @AgentFunction({ description: "Gets.", input: z.object({}) })
  "get order"() {}`),
      errors: [
        {
          messageId: "invalid",
          suggestions: [
            {
              messageId: "rename",
              output: tools(`  @AgentFunction({ name: "get_order", description: "Gets.", input: z.object({}) })
  "get order"() {}`),
            },
          ],
        },
      ],
    },
    {
      code: tools(`  @AgentFunction({ name: "${"x".repeat(65)}", description: "Gets.", input: z.object({}) })
  get() {}`),
      errors: [
        {
          messageId: "invalid",
          data: { name: "x".repeat(65) },
          suggestions: [
            {
              messageId: "rename",
              output: tools(`  @AgentFunction({ name: "${"x".repeat(64)}", description: "Gets.", input: z.object({}) })
  get() {}`),
            },
          ],
        },
      ],
    },
    {
      code: tools(`  @AgentFunction({ name: "überprüfen", description: "Checks.", input: z.object({}) })
  check() {}`),
      errors: [
        {
          messageId: "invalid",
          suggestions: [
            {
              messageId: "rename",
              data: { name: "_berpr_fen" },
              output: tools(`  @AgentFunction({ name: "_berpr_fen", description: "Checks.", input: z.object({}) })
  check() {}`),
            },
          ],
        },
      ],
    },
    {
      // A name in a template literal is read like a string.
      code: tools(`  @AgentFunction({ name: \`orders/get\`, description: "Gets.", input: z.object({}) })
  get() {}`),
      errors: [
        {
          messageId: "invalid",
          data: { name: "orders/get" },
          suggestions: [
            {
              messageId: "rename",
              output: tools(`  @AgentFunction({ name: "orders_get", description: "Gets.", input: z.object({}) })
  get() {}`),
            },
          ],
        },
      ],
    },
    {
      // A .js file with decorators (typescript-eslint's parser, no program) is read the same way.
      ...javaScript(`import { AgentFunction } from "@needlework/core";
class T { @AgentFunction({ name: "get order", description: "Gets.", input: {} }) get() {} }`),
      errors: [
        {
          messageId: "invalid",
          suggestions: [
            {
              messageId: "rename",
              output: `import { AgentFunction } from "@needlework/core";
class T { @AgentFunction({ name: "get_order", description: "Gets.", input: {} }) get() {} }`,
            },
          ],
        },
      ],
    },
  ],
});

runsOnJavaScript("tool-name", toolName);
