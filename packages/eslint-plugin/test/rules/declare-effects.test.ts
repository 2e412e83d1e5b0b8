import { declareEffects } from "../../src/rules/declare-effects.js";
import { javaScript, ruleTester, runsOnJavaScript } from "../rule-tester.js";
import { tools } from "../sources.js";

const tool = (options: string, method = "get() {}") =>
  tools(`  @AgentFunction(${options})
  ${method}`);
/** The three suggestions, each giving `options` with `effects` added by `add(effects)`. */
const declare = (add: (effects: string) => string, method?: string) =>
  ["none", "internal", "external"].map((effects) => ({
    messageId: "declare" as const,
    data: { effects },
    output: tool(add(effects), method),
  }));

ruleTester().run("declare-effects", declareEffects, {
  valid: [
    tool('{ description: "Gets.", input: z.object({}), effects: "none" }'),
    tool('{ description: "Sends.", input: z.object({}), effects: "external" }'),
    // readOnly: true counts as effects "none".
    tool('{ description: "Gets.", input: z.object({}), readOnly: true }'),
    // Options not written out here are not guessed at.
    tool("options()"),
    tool('{ ...shared, description: "Gets.", input: z.object({}) }'),
    javaScript(`import { AgentFunction } from "@needlework/core";
class T { @AgentFunction({ description: "Gets.", input: {}, effects: "none" }) get() {} }`),
  ],
  invalid: [
    {
      code: tool('{ description: "Gets.", input: z.object({}) }'),
      errors: [
        {
          messageId: "undeclared",
          line: 6,
          data: { tool: "get" },
          suggestions: declare((e) => `{ description: "Gets.", input: z.object({}), effects: "${e}" }`),
        },
      ],
    },
    {
      // readOnly: false says it may change things, but not what.
      code: tool('{ description: "Cancels.", input: z.object({}), readOnly: false }', "cancel() {}"),
      errors: [
        {
          messageId: "undeclared",
          data: { tool: "cancel" },
          suggestions: declare(
            (e) => `{ description: "Cancels.", input: z.object({}), readOnly: false, effects: "${e}" }`,
            "cancel() {}",
          ),
        },
      ],
    },
    {
      code: tool(
        '{ name: "send_mail", description: "Sends.", input: z.object({}), requiresApproval: true }',
        "send() {}",
      ),
      errors: [
        {
          messageId: "undeclared",
          data: { tool: "send_mail" },
          suggestions: declare(
            (e) =>
              `{ name: "send_mail", description: "Sends.", input: z.object({}), requiresApproval: true, effects: "${e}" }`,
            "send() {}",
          ),
        },
      ],
    },
    {
      code: tool('{ description: "Reads the web.", input: z.object({}), reads: "untrusted" }', "browse() {}"),
      errors: [
        {
          messageId: "undeclared",
          data: { tool: "browse" },
          suggestions: declare(
            (e) => `{ description: "Reads the web.", input: z.object({}), reads: "untrusted", effects: "${e}" }`,
            "browse() {}",
          ),
        },
      ],
    },
    {
      code: tool('{ description: "Lists.", input: z.object({}) }', "list = () => [];"),
      errors: [
        {
          messageId: "undeclared",
          data: { tool: "list" },
          suggestions: declare(
            (e) => `{ description: "Lists.", input: z.object({}), effects: "${e}" }`,
            "list = () => [];",
          ),
        },
      ],
    },
    {
      ...javaScript(`import { AgentFunction } from "@needlework/core";
class T { @AgentFunction({ description: "Gets.", input: {} }) get() {} }`),
      errors: [
        {
          messageId: "undeclared",
          data: { tool: "get" },
          suggestions: ["none", "internal", "external"].map((effects) => ({
            messageId: "declare" as const,
            data: { effects },
            output: `import { AgentFunction } from "@needlework/core";
class T { @AgentFunction({ description: "Gets.", input: {}, effects: "${effects}" }) get() {} }`,
          })),
        },
      ],
    },
  ],
});

runsOnJavaScript("declare-effects", declareEffects);
