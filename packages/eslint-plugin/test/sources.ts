// Source snippets the rule tests share: a tool class, a builder chain, a group with a constructor, an agent.

export const TOOL_HEADER = `import { AgentFunction, AgentFunctionGroup, ToolResult } from "@needlework/core";
import { z } from "zod";
`;

/** A tool class `OrderTools` with `body` as its members (the first member is on line 6). */
export const tools = (body: string): string => `${TOOL_HEADER}
@AgentFunctionGroup("orders")
export class OrderTools {
${body}
}
`;

/** A builder chain from `usingAgentFramework(container)` with `chain` between its tools and its build (line 8 on). */
export const builder = (chain: string): string => `import "reflect-metadata";
import { container } from "tsyringe";
import { usingAgentFramework } from "@needlework/workflows";
import { OrderTools } from "./groups.js";

export const factory = usingAgentFramework(container)
  .addAgentFunctions(OrderTools)
${chain}
  .buildAgentFactory();
`;

/** A tool class with `decorator` and constructor `ctor` (the decorator is on line 8). */
export const group = (
  decorator: string,
  ctor: string,
): string => `import { AgentFunction, AgentFunctionGroup } from "@needlework/core";
import { z } from "zod";

class OrderRepository { find(id: string) { return id; } }
class Clock { now() { return 0; } }
interface Mailer { send(to: string): void }

${decorator}
export class OrderTools {
  ${ctor}

  @AgentFunction({ description: "Gets.", input: z.object({ id: z.string().describe("Id.") }) })
  get({ id }: { id: string }) { return id; }
}
`;

/** An `@Agent` with `options` (on line 3). */
export const agent = (options: string): string => `import { Agent } from "@needlework/workflows";

@Agent(${options})
export class BillingAgent {}
`;
