import { knownFunctionGroup } from "../../src/rules/known-function-group.js";
import { javaScript, ruleTester, runsOnJavaScript } from "../rule-tester.js";
import { agent } from "../sources.js";

const factory = (call: string) => `import "reflect-metadata";
import { container } from "tsyringe";
import { usingAgentFramework } from "@needlework/workflows";
import { OrderTools } from "./groups.js";
import { SupportAgent } from "./agents.js";

const factory = usingAgentFramework(container).addAgentFunctions(OrderTools).buildAgentFactory();
export const agent = ${call};
`;
const DECLARED = "billing, orders, shipping";

ruleTester().run("known-function-group", knownFunctionGroup, {
  valid: [
    agent('{ name: "billing", instructions: "Bills.", functionGroups: ["billing", "shipping"] }'),
    {
      code: agent('{ name: "billing", instructions: "Bills.", functionGroups: ["ledger"] }'),
      options: [{ knownGroups: ["ledger"] }],
    },
    factory('factory.createAgent({ name: "support", instructions: "Helps.", functionGroups: ["orders"] })'),
    factory('factory.createAgent(SupportAgent, { functionGroups: ["billing"] })'),
    // Without the program, other files' groups are out of sight: nothing is said.
    javaScript(`import { Agent } from "@needlework/workflows";
@Agent({ name: "x", instructions: "X.", functionGroups: ["cmr"] })
export class X {}
export const a = factory.createAgent({ name: "y", instructions: "Y.", functionGroups: ["cmr"] });`),
  ],
  invalid: [
    {
      code: agent('{ name: "billing", instructions: "Bills.", functionGroups: ["billing", "shiping"] }'),
      errors: [
        {
          messageId: "unknown",
          line: 3,
          data: { agent: "billing", group: "shiping", declared: DECLARED },
          suggestions: [
            {
              messageId: "rename",
              output: agent('{ name: "billing", instructions: "Bills.", functionGroups: ["billing", "shipping"] }'),
            },
          ],
        },
      ],
    },
    {
      code: factory('factory.createAgent({ name: "crm", instructions: "Syncs.", functionGroups: ["cmr"] })'),
      errors: [
        { messageId: "unknown", line: 8, data: { agent: "crm", group: "cmr", declared: DECLARED }, suggestions: [] },
      ],
    },
    {
      code: factory('factory.createAgent(SupportAgent, { functionGroups: ["order"] })'),
      errors: [
        {
          messageId: "unknown",
          data: { agent: "SupportAgent", group: "order", declared: DECLARED },
          suggestions: [
            {
              messageId: "rename",
              output: factory('factory.createAgent(SupportAgent, { functionGroups: ["orders"] })'),
            },
          ],
        },
      ],
    },
    {
      // Options held in a constant.
      code: `${factory("factory.createAgent(options)")}const options = { name: "x", instructions: "X.", functionGroups: ["ledger"] } as const;\n`,
      errors: [{ messageId: "unknown", data: { agent: "x", group: "ledger", declared: DECLARED }, suggestions: [] }],
    },
    {
      code: agent('{ name: "billing", instructions: "Bills.", functionGroups: ["ledger", "invoices"] }'),
      errors: [
        { messageId: "unknown", data: { agent: "billing", group: "ledger", declared: DECLARED }, suggestions: [] },
        { messageId: "unknown", data: { agent: "billing", group: "invoices", declared: DECLARED }, suggestions: [] },
      ],
    },
  ],
});

runsOnJavaScript("known-function-group", knownFunctionGroup);
