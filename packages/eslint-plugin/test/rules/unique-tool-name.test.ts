import { uniqueToolName } from "../../src/rules/unique-tool-name.js";
import { javaScript, ruleTester, runsOnJavaScript } from "../rule-tester.js";

const header = `import "reflect-metadata";
import { container } from "tsyringe";
import { AgentFunction, AgentFunctionGroup, registerAgentFunctions } from "@needlework/core";
import { usingAgentFramework } from "@needlework/workflows";
import { z } from "zod";
import { OrderTools } from "./groups.js";
`;

/** Two classes, \`A\` with tool \`a\` and \`B\` with \`b\` (each a method name or an options \`name\`). */
const two = (a: string, b: string, tail: string) => `${header}
@AgentFunctionGroup("a")
class A { @AgentFunction({ ${a}description: "A.", input: z.object({}) }) first() {} }
@AgentFunctionGroup("b")
class B { @AgentFunction({ ${b}description: "B.", input: z.object({}) }) second() {} }
${tail}
`;

ruleTester().run("unique-tool-name", uniqueToolName, {
  valid: [
    two("", "", "export const f = usingAgentFramework(container).addAgentFunctions(A, B).buildAgentFactory();"),
    // One class registered twice is registered once.
    two(
      'name: "x", ',
      'name: "x", ',
      "export const f = usingAgentFramework(container).addAgentFunctions(A, A).buildAgentFactory();",
    ),
    // Two factories may each publish the name.
    two(
      'name: "x", ',
      'name: "x", ',
      `export const f = usingAgentFramework(container).addAgentFunctions(A).buildAgentFactory();
export const g = usingAgentFramework(container.createChildContainer()).addAgentFunctions(B).buildAgentFactory();`,
    ),
    // OrderTools (groups.ts) publishes getOrder; "getOrders" is another name.
    `${header}
@AgentFunctionGroup() class C { @AgentFunction({ description: "C.", input: z.object({}) }) getOrders() {} }
export const f = usingAgentFramework(container).addAgentFunctions(OrderTools, C).buildAgentFactory();`,
    // Without the program, another file's class is out of sight.
    javaScript(`import { container } from "tsyringe";
import { AgentFunction, AgentFunctionGroup } from "@needlework/core";
import { usingAgentFramework } from "@needlework/workflows";
import { OrderTools } from "./groups.js";
@AgentFunctionGroup() class C { @AgentFunction({ description: "C.", input: {} }) getOrder() {} }
export const f = usingAgentFramework(container).addAgentFunctions(OrderTools, C).buildAgentFactory();`),
  ],
  invalid: [
    {
      // A method's name and another tool's explicit name.
      code: `${header}
@AgentFunctionGroup()
class T {
  @AgentFunction({ description: "Gets.", input: z.object({}) }) getOrder() {}
  @AgentFunction({ name: "getOrder", description: "Gets again.", input: z.object({}) }) lookup() {}
}`,
      errors: [{ messageId: "inClass", line: 11, data: { name: "getOrder", other: "method getOrder" } }],
    },
    {
      code: `${header}
@AgentFunctionGroup()
class T {
  @AgentFunction({ name: "find", description: "Finds.", input: z.object({}) }) findOrder() {}
  @AgentFunction({ name: "find", description: "Finds.", input: z.object({}) }) findCustomer() {}
}`,
      errors: [{ messageId: "inClass", data: { name: "find", other: "findOrder (its `name`)" } }],
    },
    {
      code: two(
        'name: "lookup", ',
        'name: "lookup", ',
        "export const f = usingAgentFramework(container).addAgentFunctions(A, B).buildAgentFactory();",
      ),
      errors: [
        {
          messageId: "inBuilder",
          line: 12,
          data: { className: "B", name: "lookup", otherClass: "A", otherMethod: "first" },
        },
      ],
    },
    {
      // Across addAgentFunctions calls of one chain; B's method name against A's explicit name.
      code: two(
        'name: "second", ',
        "",
        "export const f = usingAgentFramework(container).addAgentFunctions(A).usingResilience().addAgentFunctions(B).buildAgentFactory();",
      ),
      errors: [
        { messageId: "inBuilder", data: { className: "B", name: "second", otherClass: "A", otherMethod: "first" } },
      ],
    },
    {
      // Another file's class, read through the program: OrderTools publishes getOrder.
      code: `${header}
@AgentFunctionGroup() class C { @AgentFunction({ description: "C.", input: z.object({}) }) getOrder() {} }
export const f = usingAgentFramework(container).addAgentFunctions(OrderTools, C).buildAgentFactory();`,
      errors: [
        {
          messageId: "inBuilder",
          data: { className: "C", name: "getOrder", otherClass: "OrderTools", otherMethod: "getOrder" },
        },
      ],
    },
    {
      code: two('name: "x", ', 'name: "x", ', "registerAgentFunctions(container, A, B);"),
      errors: [{ messageId: "inBuilder", data: { className: "B", name: "x", otherClass: "A", otherMethod: "first" } }],
    },
    {
      ...javaScript(`import { AgentFunction, AgentFunctionGroup } from "@needlework/core";
@AgentFunctionGroup()
class T {
  @AgentFunction({ description: "Gets.", input: {} }) get() {}
  @AgentFunction({ name: "get", description: "Gets.", input: {} }) fetch() {}
}`),
      errors: [{ messageId: "inClass" }],
    },
  ],
});

runsOnJavaScript("unique-tool-name", uniqueToolName);
