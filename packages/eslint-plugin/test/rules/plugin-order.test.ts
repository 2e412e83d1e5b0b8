import { pluginOrder } from "../../src/rules/plugin-order.js";
import { javaScript, ruleTester, runsOnJavaScript } from "../rule-tester.js";
import { builder } from "../sources.js";

const swap = (first: string, second: string, output: string) => [
  { messageId: "swap" as const, data: { first, second }, output },
];

ruleTester().run("plugin-order", pluginOrder, {
  valid: [
    builder(
      "  .usingResilience({ retry: { maxAttempts: 3 } })\n  .usingToolResultMiddleware()\n  .usingTruncation()\n  .usingRedaction()",
    ),
    builder("  .usingToolResultMiddleware()\n  .usingTruncation()\n  .usingRedaction()\n  .usingArtifacts({ store })"),
    // Resilience alone, or the result middleware alone, has no order to get wrong.
    builder("  .usingToolResultMiddleware()"),
    // Not needlework's builder.
    `const b = { usingToolResultMiddleware() { return b; }, usingResilience() { return b; } };
b.usingToolResultMiddleware().usingResilience();`,
    javaScript(`import { container } from "tsyringe";
import { usingAgentFramework } from "@needlework/workflows";
usingAgentFramework(container).usingResilience().usingToolResultMiddleware().buildAgentFactory();`),
  ],
  invalid: [
    {
      code: builder("  .usingToolResultMiddleware()\n  .usingArtifacts({ store })\n  .usingRedaction()"),
      errors: [
        {
          messageId: "artifactsInside",
          line: 9,
          data: {
            method: "usingRedaction",
            why: "redaction belongs inside it, so what it stores is the redacted outcome.",
          },
          suggestions: swap(
            "usingArtifacts",
            "usingRedaction",
            builder("  .usingToolResultMiddleware()\n  .usingRedaction()\n  .usingArtifacts({ store })"),
          ),
        },
      ],
    },
    {
      code: builder("  .usingToolResultMiddleware() // outermost\n  .usingResilience({ retry: { maxAttempts: 3 } })"),
      errors: [
        {
          messageId: "resultBeforeResilience",
          line: 8,
          suggestions: swap(
            "usingToolResultMiddleware",
            "usingResilience",
            builder("  .usingResilience({ retry: { maxAttempts: 3 } }) // outermost\n  .usingToolResultMiddleware()"),
          ),
        },
      ],
    },
    {
      code: builder("  .usingResilience()\n  .usingRedaction()\n  .usingToolResultMiddleware()"),
      errors: [
        {
          messageId: "shapingInsideResult",
          line: 9,
          data: { method: "usingRedaction", shaped: "redacted" },
          suggestions: swap(
            "usingRedaction",
            "usingToolResultMiddleware",
            builder("  .usingResilience()\n  .usingToolResultMiddleware()\n  .usingRedaction()"),
          ),
        },
      ],
    },
    {
      code: builder("  .usingTruncation()\n  .usingResilience()\n  .usingToolResultMiddleware()"),
      errors: [
        {
          messageId: "shapingInsideResult",
          line: 8,
          data: { method: "usingTruncation", shaped: "truncated" },
          suggestions: swap(
            "usingTruncation",
            "usingToolResultMiddleware",
            builder("  .usingToolResultMiddleware()\n  .usingResilience()\n  .usingTruncation()"),
          ),
        },
      ],
    },
    {
      // Both defects in one chain.
      code: builder("  .usingRedaction()\n  .usingToolResultMiddleware()\n  .usingResilience()"),
      errors: [
        {
          messageId: "shapingInsideResult",
          line: 8,
          suggestions: swap(
            "usingRedaction",
            "usingToolResultMiddleware",
            builder("  .usingToolResultMiddleware()\n  .usingRedaction()\n  .usingResilience()"),
          ),
        },
        {
          messageId: "resultBeforeResilience",
          line: 9,
          suggestions: swap(
            "usingToolResultMiddleware",
            "usingResilience",
            builder("  .usingRedaction()\n  .usingResilience()\n  .usingToolResultMiddleware()"),
          ),
        },
      ],
    },
    {
      // A namespace import is needlework's all the same.
      code: `import * as nw from "@needlework/workflows";
nw.usingAgentFramework(c).usingToolResultMiddleware().usingResilience().buildAgentFactory();`,
      errors: [
        {
          messageId: "resultBeforeResilience",
          suggestions: swap(
            "usingToolResultMiddleware",
            "usingResilience",
            `import * as nw from "@needlework/workflows";
nw.usingAgentFramework(c).usingResilience().usingToolResultMiddleware().buildAgentFactory();`,
          ),
        },
      ],
    },
    {
      ...javaScript(`import { usingAgentFramework } from "@needlework/workflows";
usingAgentFramework(c).usingToolResultMiddleware().usingResilience();`),
      errors: [
        {
          messageId: "resultBeforeResilience",
          suggestions: swap(
            "usingToolResultMiddleware",
            "usingResilience",
            `import { usingAgentFramework } from "@needlework/workflows";
usingAgentFramework(c).usingResilience().usingToolResultMiddleware();`,
          ),
        },
      ],
    },
  ],
});

// Plain JavaScript (JAVASCRIPT_APP) puts the result middleware before resilience: reported there too.
runsOnJavaScript("plugin-order", pluginOrder, ["resultBeforeResilience"]);
