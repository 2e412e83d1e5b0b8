import { uniqueDefinedToolName } from "../../src/rules/unique-defined-tool-name.js";
import { ruleTester } from "../rule-tester.js";

const header = `import "reflect-metadata";
import { container } from "tsyringe";
import { AgentFunction, AgentFunctionGroup, defineTool } from "@needlework/core";
import { usingAgentFramework } from "@needlework/workflows";
import { z } from "zod";
@AgentFunctionGroup("orders")
class OrderDesk { @AgentFunction({ description: "Looks up.", input: z.object({}) }) lookup() {} }
const define = (name: string) => defineTool({ name, description: "D.", input: z.object({}), execute: () => 1 });
`;
const tool = (name: string) =>
  `defineTool({ name: "${name}", description: "D.", input: z.object({}), execute: () => 1 })`;

ruleTester().run("unique-defined-tool-name", uniqueDefinedToolName, {
  valid: [
    `${header}export const f = usingAgentFramework(container).addAgentFunctions(OrderDesk).addTools(${tool("quote")}).buildAgentFactory();`,
    // One defined tool added twice is added once.
    `${header}const quote = ${tool("quote")};
export const f = usingAgentFramework(container).addTools(quote, [quote]).buildAgentFactory();`,
    // Two builders may each publish the name; a name computed at run time is not read.
    `${header}export const f = usingAgentFramework(container).addAgentFunctions(OrderDesk).buildAgentFactory();
export const g = usingAgentFramework(container).addTools(${tool("lookup")}, define("lookup")).buildAgentFactory();`,
  ],
  invalid: [
    {
      // A defined tool named like a decorated method of the builder's classes, wherever addTools sits.
      code: `${header}export const f = usingAgentFramework(container).addTools(${tool("lookup")}).addAgentFunctions(OrderDesk).buildAgentFactory();`,
      errors: [{ messageId: "collision", data: { name: "lookup", other: "OrderDesk.lookup" } }],
    },
    {
      // Two defined tools, through a const and in a list.
      code: `${header}const a = ${tool("quote")};
const b = ${tool("quote")};
export const f = usingAgentFramework(container).addTools([a, b]).buildAgentFactory();`,
      errors: [{ messageId: "collision", line: 11, data: { name: "quote", other: "another defineTool" } }],
    },
  ],
});
