// The rules over one tool's declaration: its description, name, input fields and result.
import { noJsonStringParameter } from "../../src/rules/no-json-string-parameter.js";
import { noSecretParameter } from "../../src/rules/no-secret-parameter.js";
import { noStringifiedResult } from "../../src/rules/no-stringified-result.js";
import { strictSchema } from "../../src/rules/strict-schema.js";
import { toolDescription } from "../../src/rules/tool-description.js";
import { toolName } from "../../src/rules/tool-name.js";
import { ruleTester } from "../rule-tester.js";

const header = `import { AgentFunction, AgentFunctionGroup, ToolResult } from "@needlework/core";
import { z } from "zod";
`;
const tools = (body: string) => `${header}
@AgentFunctionGroup("orders")
export class OrderTools {
${body}
}
`;

const tester = ruleTester();

tester.run("tool-description", toolDescription, {
  valid: [
    tools(`  @AgentFunction({
    description: "Looks up an order by ID.",
    input: z.object({ orderId: z.string().describe("Order id, like ORD-1."), lines: z.array(z.string()).meta({ description: "Line ids." }) }),
  })
  getOrder(input: { orderId: string; lines: string[] }) { return input; }`),
    // A schema held in a constant is read where it is declared.
    `${header}
const RefundInput = z.object({ orderId: z.string().describe("Order id."), amount: z.number().positive().describe("Amount in cents.").optional() });
class RefundTools {
  @AgentFunction({ description: "Refunds an order.", input: RefundInput })
  refund(input: z.infer<typeof RefundInput>) { return input; }
}`,
    // Not needlework's decorator: another library's AgentFunction is not read.
    `import { AgentFunction } from "other-lib";
import { z } from "zod";
class T { @AgentFunction({ input: z.object({ a: z.string() }) }) a() {} }`,
  ],
  invalid: [
    {
      code: tools(`  @AgentFunction({ input: z.object({ orderId: z.string().describe("Order id.") }) })
  getOrder({ orderId }: { orderId: string }) { return orderId; }`),
      errors: [{ messageId: "missingTool", line: 6, data: { tool: "getOrder" } }],
    },
    {
      code: tools(`  @AgentFunction({ description: "Looks up an order.", input: z.object({ orderId: z.string(), address: z.object({ city: z.string().describe("City."), zip: z.string() }).describe("Ship-to address.") }) })
  getOrder(input: { orderId: string }) { return input; }`),
      errors: [
        { messageId: "missingField", data: { field: "orderId", tool: "getOrder" } },
        { messageId: "missingField", data: { field: "address.zip", tool: "getOrder" } },
      ],
    },
    {
      code: tools(`  @AgentFunction({ name: "get_order", description: "  ", input: z.object({ id: z.string().describe("") }) })
  getOrder(input: { id: string }) { return input; }`),
      errors: [
        { messageId: "blankTool", data: { tool: "get_order" } },
        { messageId: "blankField", data: { field: "id", tool: "get_order" } },
      ],
    },
  ],
});

tester.run("tool-name", toolName, {
  valid: [
    tools(`  @AgentFunction({ name: "orders-get_v2", description: "Gets.", input: z.object({}) })
  get() {}`),
    tools(`  @AgentFunction({ description: "Gets.", input: z.object({}) })
  getOrderStatus() {}`),
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
  ],
});

tester.run("no-json-string-parameter", noJsonStringParameter, {
  valid: [
    tools(`  @AgentFunction({ description: "Updates.", input: z.object({ changes: z.object({ email: z.string().describe("New email.") }).describe("Fields to set.") }) })
  update(input: object) { return input; }`),
    // A string about JSON that is not JSON itself.
    tools(`  @AgentFunction({ description: "Exports.", input: z.object({ format: z.enum(["json", "csv"]).describe("Output format: json or csv.") }) })
  exportOrders(input: object) { return input; }`),
  ],
  invalid: [
    {
      code: tools(`  @AgentFunction({ description: "Updates a contact.", input: z.object({ id: z.string().describe("Contact id."), changes: z.string().describe("The fields to change, as a JSON object.") }) })
  update(input: { id: string; changes: string }) { return input; }`),
      errors: [{ messageId: "jsonString", line: 6, data: { field: "changes", tool: "update" } }],
    },
  ],
});

tester.run("strict-schema", strictSchema, {
  valid: [
    tools(`  @AgentFunction({ description: "Searches.", input: z.object({ query: z.string().describe("Words."), limit: z.number().int().min(1).max(50).nullable().describe("At most.") , at: z.iso.datetime().describe("When.") }) })
  search(input: object) { return input; }`),
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
  ],
});

tester.run("no-secret-parameter", noSecretParameter, {
  valid: [
    tools(`  @AgentFunction({ description: "Lists.", input: z.object({ pageToken: z.string().nullable().describe("Cursor."), maxTokens: z.number().describe("Budget."), author: z.string().describe("Who.") }) })
  list(input: object) { return input; }`),
  ],
  invalid: [
    {
      code: tools(`  @AgentFunction({ description: "Charges a card.", input: z.object({ orderId: z.string().describe("Order."), stripeApiKey: z.string().describe("The Stripe key."), password: z.string().describe("Account password.") }) })
  charge(input: object) { return input; }`),
      errors: [
        { messageId: "secret", data: { field: "stripeApiKey", tool: "charge", word: "api key" } },
        { messageId: "secret", data: { field: "password", tool: "charge", word: "password" } },
      ],
    },
    {
      code: tools(`  @AgentFunction({ description: "Calls GitHub.", input: z.object({ repo: z.string().describe("Repo."), auth: z.object({ access_token: z.string().describe("Token.") }).describe("Auth.") }) })
  call(input: object) { return input; }`),
      errors: [{ messageId: "secret", data: { field: "auth.access_token", tool: "call", word: "access token" } }],
    },
    {
      code: tools(`  @AgentFunction({ description: "Connects mailboxes.", input: z.object({ accounts: z.object({ user: z.string().describe("User."), password: z.string().describe("Password.") }).array().describe("Accounts.") }) })
  connect(input: object) { return input; }`),
      errors: [{ messageId: "secret", data: { field: "accounts[].password", tool: "connect", word: "password" } }],
    },
  ],
});

tester.run("no-stringified-result", noStringifiedResult, {
  valid: [
    tools(`  @AgentFunction({ description: "Gets.", input: z.object({}) })
  async get() {
    const body = JSON.stringify({ a: 1 }); // sent somewhere else, not returned
    const render = () => JSON.stringify(body);
    return ToolResult.ok({ sent: body.length, text: render() });
  }`),
    // Not a tool method.
    `class Formatter { format(value: unknown) { return JSON.stringify(value); } }`,
  ],
  invalid: [
    {
      code: tools(`  @AgentFunction({ description: "Gets an order.", input: z.object({}) })
  async get() {
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
              output: tools(`  @AgentFunction({ description: "Gets an order.", input: z.object({}) })
  async get() {
    const order = { id: "ORD-1", lines: [] };
    return order;
  }`),
            },
          ],
        },
      ],
    },
    {
      code: tools(`  @AgentFunction({ description: "Lists.", input: z.object({}) })
  list() { return ToolResult.ok(JSON.stringify([1, 2], null, 2)); }`),
      errors: [{ messageId: "stringified", suggestions: [] }],
    },
  ],
});
