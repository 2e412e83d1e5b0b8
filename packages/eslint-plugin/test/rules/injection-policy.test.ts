import { injectionPolicy } from "../../src/rules/injection-policy.js";
import { javaScript, ruleTester, runsOnJavaScript } from "../rule-tester.js";

/** Mail tools read untrusted mail; bank tools read balances (sensitive) and pay (`pay` options vary). */
const app = (pay: string, tail: string) => `import "reflect-metadata";
import { container } from "tsyringe";
import { AgentFunction, AgentFunctionGroup } from "@needlework/core";
import { Agent, usingAgentFramework } from "@needlework/workflows";
import { z } from "zod";

@AgentFunctionGroup("mail")
class MailTools {
  @AgentFunction({ description: "Reads the inbox.", input: z.object({}), reads: "untrusted", effects: "none" })
  readInbox() { return []; }
}

@AgentFunctionGroup("bank")
class BankTools {
  @AgentFunction({ description: "Reads the balance.", input: z.object({}), sensitive: true, effects: "none" })
  balance() { return 0; }
  @AgentFunction({ description: "Pays.", input: z.object({})${pay} })
  pay() { return "paid"; }
}

@Agent({ name: "assistant", instructions: "Helps.", functionGroups: ["mail", "bank"] })
class Assistant {}

@Agent({ name: "reader", instructions: "Reads mail.", functionGroups: ["mail"] })
class Reader {}

${tail}
`;
const POLICY = '.usingInjectionPolicy({ afterUntrusted: "arguments" })';
const chain = (middle: string) => `export const factory = usingAgentFramework(container)
  .addAgentFunctions(MailTools, BankTools)${middle}
  .buildAgentFactory();`;
const withPolicy = (middle: string) => `export const factory = usingAgentFramework(container)
  ${POLICY}
  .addAgentFunctions(MailTools, BankTools)${middle}
  .buildAgentFactory();`;
const data = (agent: string, undeclared = "") => ({
  agent,
  untrusted: "readInbox",
  sensitive: "balance",
  external: "pay",
  undeclared,
});
const EXTERNAL = ', effects: "external"';

ruleTester().run("injection-policy", injectionPolicy, {
  valid: [
    app(EXTERNAL, withPolicy("")),
    // The only agent reads mail and nothing else.
    app(EXTERNAL, chain("\n  .addAgents(Reader)")),
    // readOnly counts as effects "none"; "internal" is not external.
    app(", readOnly: true", chain("")),
    app(', effects: "internal"', chain("")),
    // A created agent that picks the mail tools only.
    app(
      EXTERNAL,
      `${chain("\n  .addAgents(Reader)")}
export const agent = factory.createAgent({ name: "triage", instructions: "Sorts.", functionGroups: ["mail"] });`,
    ),
    javaScript(`import { usingAgentFramework } from "@needlework/workflows";
export const f = usingAgentFramework(container).addAgentFunctions(Imported).buildAgentFactory();`),
  ],
  invalid: [
    {
      code: app(EXTERNAL, chain("")),
      errors: [
        {
          messageId: "unguarded",
          line: 27,
          data: data("This factory's tools"),
          suggestions: [{ messageId: "addPolicy", output: app(EXTERNAL, withPolicy("")) }],
        },
      ],
    },
    {
      // Undeclared effects count as external.
      code: app("", chain("")),
      errors: [
        {
          messageId: "unguarded",
          data: data("This factory's tools", ", undeclared effects count as external"),
          suggestions: [{ messageId: "addPolicy", output: app("", withPolicy("")) }],
        },
      ],
    },
    {
      code: app(EXTERNAL, chain("\n  .addAgents(Assistant, Reader)")),
      errors: [
        {
          messageId: "unguarded",
          line: 29,
          column: 14,
          data: data("Agent 'assistant'"),
          suggestions: [
            { messageId: "addPolicy", output: app(EXTERNAL, withPolicy("\n  .addAgents(Assistant, Reader)")) },
          ],
        },
      ],
    },
    {
      code: app(
        EXTERNAL,
        `${chain("\n  .addAgents(Reader)")}
export const agent = factory.createAgent({ name: "payer", instructions: "Pays.", functionGroups: ["mail", "bank"] });`,
      ),
      errors: [
        {
          messageId: "unguarded",
          line: 31,
          data: data("Agent 'payer'"),
          suggestions: [
            {
              messageId: "addPolicy",
              output: app(
                EXTERNAL,
                `${withPolicy("\n  .addAgents(Reader)")}
export const agent = factory.createAgent({ name: "payer", instructions: "Pays.", functionGroups: ["mail", "bank"] });`,
              ),
            },
          ],
        },
      ],
    },
    {
      // As NW010: with no declared agent the factory's whole tool set is judged, whatever this file
      // creates from it (an adapter serving factory.tools offers them all).
      code: app(
        EXTERNAL,
        `${chain("")}
export const agent = factory.createAgent({ name: "triage", instructions: "Sorts.", functionGroups: ["mail"] });`,
      ),
      errors: [
        {
          messageId: "unguarded",
          line: 27,
          data: data("This factory's tools"),
          suggestions: [
            {
              messageId: "addPolicy",
              output: app(
                EXTERNAL,
                `${withPolicy("")}
export const agent = factory.createAgent({ name: "triage", instructions: "Sorts.", functionGroups: ["mail"] });`,
              ),
            },
          ],
        },
      ],
    },
    {
      // An agent that names the classes themselves.
      code: app(EXTERNAL, chain(""))
        .replace(
          "usingAgentFramework(container)\n  .addAgentFunctions(MailTools, BankTools)",
          "usingAgentFramework(container)\n  .addAgentFunctions(MailTools, BankTools)\n  .addAgents(Mixed)",
        )
        .replace(
          "class Reader {}",
          'class Reader {}\n@Agent({ name: "mixed", instructions: "M.", functions: [MailTools, BankTools] })\nclass Mixed {}',
        ),
      errors: [
        {
          messageId: "unguarded",
          data: data("Agent 'mixed'"),
          suggestions: [
            {
              messageId: "addPolicy",
              output: app(EXTERNAL, chain(""))
                .replace(
                  "usingAgentFramework(container)\n  .addAgentFunctions(MailTools, BankTools)",
                  `usingAgentFramework(container)\n  ${POLICY}\n  .addAgentFunctions(MailTools, BankTools)\n  .addAgents(Mixed)`,
                )
                .replace(
                  "class Reader {}",
                  'class Reader {}\n@Agent({ name: "mixed", instructions: "M.", functions: [MailTools, BankTools] })\nclass Mixed {}',
                ),
            },
          ],
        },
      ],
    },
    {
      // A .js file with decorators: the classes of this file are read without a program.
      ...javaScript(`import { AgentFunction, AgentFunctionGroup } from "@needlework/core";
import { usingAgentFramework } from "@needlework/workflows";
@AgentFunctionGroup("inbox")
class Inbox {
  @AgentFunction({ description: "Reads and pays.", input: {}, reads: "untrusted", sensitive: true }) handle() {}
}
export const f = usingAgentFramework(container).addAgentFunctions(Inbox).buildAgentFactory();`),
      errors: [
        {
          messageId: "unguarded",
          data: {
            agent: "This factory's tools",
            untrusted: "handle",
            sensitive: "handle",
            external: "handle",
            undeclared: ", undeclared effects count as external",
          },
          suggestions: [
            {
              messageId: "addPolicy",
              output: `import { AgentFunction, AgentFunctionGroup } from "@needlework/core";
import { usingAgentFramework } from "@needlework/workflows";
@AgentFunctionGroup("inbox")
class Inbox {
  @AgentFunction({ description: "Reads and pays.", input: {}, reads: "untrusted", sensitive: true }) handle() {}
}
export const f = usingAgentFramework(container)${POLICY}.addAgentFunctions(Inbox).buildAgentFactory();`,
            },
          ],
        },
      ],
    },
  ],
});

runsOnJavaScript("injection-policy", injectionPolicy);
