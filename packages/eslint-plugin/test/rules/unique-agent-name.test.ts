import { uniqueAgentName } from "../../src/rules/unique-agent-name.js";
import { javaScript, ruleTester, runsOnJavaScript } from "../rule-tester.js";
import { agent } from "../sources.js";

ruleTester().run("unique-agent-name", uniqueAgentName, {
  valid: [
    agent('{ name: "billing", instructions: "Bills.", functionGroups: ["billing"] }'),
    `import { Agent } from "@needlework/workflows";
@Agent({ name: "a", instructions: "A." }) class A {}
@Agent({ name: "b", instructions: "B." }) class B {}`,
    // Another library's Agent is not needlework's.
    `import { Agent } from "other-lib";
@Agent({ name: "support" }) class A {}`,
    javaScript(`import { Agent } from "@needlework/workflows";
@Agent({ name: "support", instructions: "Helps." }) class A {}`),
  ],
  invalid: [
    {
      // agents.ts, earlier in the program, declares "support".
      code: agent('{ name: "support", instructions: "Bills.", functionGroups: ["billing"] }'),
      errors: [{ messageId: "duplicate", line: 3, data: { name: "support", where: "agents.ts:4" } }],
    },
    {
      code: `import { Agent } from "@needlework/workflows";
@Agent({ name: "triage", instructions: "Sorts." })
class TriageAgent {}
@Agent({ name: "triage", instructions: "Sorts again." })
class TriageAgentV2 {}
`,
      errors: [{ messageId: "duplicate", line: 4, data: { name: "triage", where: "line 2" } }],
    },
    {
      code: `import { Agent } from "@needlework/workflows";
@Agent({ name: "a", instructions: "A." }) class A {}
@Agent({ name: "a", instructions: "A." }) class B {}
@Agent({ name: "a", instructions: "A." }) class C {}`,
      errors: [
        { messageId: "duplicate", line: 3, data: { name: "a", where: "line 2" } },
        { messageId: "duplicate", line: 4, data: { name: "a", where: "line 2" } },
      ],
    },
    {
      code: `import { Agent } from "@needlework/workflows";
@Agent({ name: \`x\`, instructions: "X." }) class A {}
export const B = @Agent({ name: "x", instructions: "X." }) class {};`,
      errors: [{ messageId: "duplicate", line: 3, data: { name: "x", where: "line 2" } }],
    },
    {
      code: `import { Agent } from "@needlework/workflows";
@Agent({ instructions: "Helps too.", functionGroups: ["orders"], name: "support" })
export class SecondSupport {}`,
      errors: [{ messageId: "duplicate", line: 2, data: { name: "support", where: "agents.ts:4" } }],
    },
    {
      // Without the program, agents of one file are still compared.
      ...javaScript(`import { Agent } from "@needlework/workflows";
@Agent({ name: "x", instructions: "X." }) class A {}
@Agent({ name: "x", instructions: "X." }) class B {}`),
      errors: [{ messageId: "duplicate", data: { name: "x", where: "line 2" } }],
    },
  ],
});

runsOnJavaScript("unique-agent-name", uniqueAgentName);
