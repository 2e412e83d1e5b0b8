import { toolDescription } from "../../src/rules/tool-description.js";
import { javaScript, ruleTester, runsOnJavaScript } from "../rule-tester.js";
import { TOOL_HEADER as header, tools } from "../sources.js";

ruleTester().run("tool-description", toolDescription, {
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
    javaScript(`import { AgentFunction } from "@needlework/core";
import { z } from "zod";
class T { @AgentFunction({ description: "Gets.", input: z.object({ id: z.string().describe("Id.") }) }) get() {} }`),
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
    {
      // A field described with .meta({ description }) that is blank; a schema in a constant.
      code: `${header}
const Input = z.object({ note: z.string().meta({ description: "" }) });
class NoteTools {
  @AgentFunction({ description: "Adds a note.", input: Input })
  note(input: z.infer<typeof Input>) { return input; }
}`,
      errors: [{ messageId: "blankField", line: 4, data: { field: "note", tool: "note" } }],
    },
    {
      // A tool declared as an arrow-function property.
      code: tools(`  @AgentFunction({ description: "Cancels.", input: z.object({ reason: z.string() }) })
  cancel = (input: { reason: string }) => input;`),
      errors: [{ messageId: "missingField", data: { field: "reason", tool: "cancel" } }],
    },
    {
      ...javaScript(`import { AgentFunction } from "@needlework/core";
import { z } from "zod";
class T { @AgentFunction({ input: z.object({}) }) get() {} }`),
      errors: [{ messageId: "missingTool", data: { tool: "get" } }],
    },
  ],
});

runsOnJavaScript("tool-description", toolDescription);
