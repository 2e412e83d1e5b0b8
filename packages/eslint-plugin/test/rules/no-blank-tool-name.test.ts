import { noBlankToolName } from "../../src/rules/no-blank-tool-name.js";
import { javaScript, ruleTester, runsOnJavaScript } from "../rule-tester.js";
import { tools } from "../sources.js";

const drop = (method: string, output: string) => [
  { messageId: "blank" as const, data: { method }, suggestions: [{ messageId: "dropName" as const, output }] },
];

ruleTester().run("no-blank-tool-name", noBlankToolName, {
  valid: [
    tools(`  @AgentFunction({ name: "get_order", description: "Gets.", input: z.object({}) })
  get() {}`),
    tools(`  @AgentFunction({ description: "Gets.", input: z.object({}) })
  get() {}`),
    // A name computed at run time is not guessed at.
    tools(`  @AgentFunction({ name: prefix + "get", description: "Gets.", input: z.object({}) })
  get() {}`),
    javaScript(`import { AgentFunction } from "@needlework/core";
class T { @AgentFunction({ name: "get", description: "Gets.", input: {} }) get() {} }`),
  ],
  invalid: [
    {
      code: tools(`  @AgentFunction({ name: "", description: "Gets.", input: z.object({}) })
  get() {}`),
      errors: drop(
        "get",
        tools(`  @AgentFunction({ description: "Gets.", input: z.object({}) })
  get() {}`),
      ),
    },
    {
      code: tools(`  @AgentFunction({ description: "Gets.", input: z.object({}), name: "   " })
  get() {}`),
      errors: drop(
        "get",
        tools(`  @AgentFunction({ description: "Gets.", input: z.object({}),  })
  get() {}`),
      ),
    },
    {
      code: tools(`  @AgentFunction({ name: \`\`, description: "Gets.", input: z.object({}) })
  getOrder() {}`),
      errors: drop(
        "getOrder",
        tools(`  @AgentFunction({ description: "Gets.", input: z.object({}) })
  getOrder() {}`),
      ),
    },
    {
      code: tools(`  @AgentFunction({ name: "\\t\\n", description: "Gets.", input: z.object({}) })
  list = () => [];`),
      errors: drop(
        "list",
        tools(`  @AgentFunction({ description: "Gets.", input: z.object({}) })
  list = () => [];`),
      ),
    },
    {
      // Options held in a constant are read where they are declared.
      code: `import { AgentFunction } from "@needlework/core";
import { z } from "zod";
const options = { name: " ", description: "Gets.", input: z.object({}) };
class T { @AgentFunction(options) get() {} }`,
      errors: drop(
        "get",
        `import { AgentFunction } from "@needlework/core";
import { z } from "zod";
const options = { description: "Gets.", input: z.object({}) };
class T { @AgentFunction(options) get() {} }`,
      ),
    },
    {
      ...javaScript(`import { AgentFunction } from "@needlework/core";
class T { @AgentFunction({ name: "", description: "Gets.", input: {} }) get() {} }`),
      errors: drop(
        "get",
        `import { AgentFunction } from "@needlework/core";
class T { @AgentFunction({ description: "Gets.", input: {} }) get() {} }`,
      ),
    },
  ],
});

runsOnJavaScript("no-blank-tool-name", noBlankToolName);
