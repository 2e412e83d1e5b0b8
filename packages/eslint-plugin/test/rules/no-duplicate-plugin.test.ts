import { noDuplicatePlugin } from "../../src/rules/no-duplicate-plugin.js";
import { javaScript, ruleTester, runsOnJavaScript } from "../rule-tester.js";
import { builder } from "../sources.js";

const remove = (plugin: string, output: string) => [{ messageId: "remove" as const, data: { plugin }, output }];

ruleTester().run("no-duplicate-plugin", noDuplicatePlugin, {
  valid: [
    // One tracer; diagnostics without a tracer beside openTelemetry().
    builder("  .usingDiagnostics({ tracer })"),
    builder("  .usingDiagnostics({ maxRecords: 10 })\n  .usingPlugin(openTelemetry({ tracer }))").replace(
      'import { usingAgentFramework } from "@needlework/workflows";',
      'import { usingAgentFramework } from "@needlework/workflows";\nimport { openTelemetry } from "@needlework/otel";',
    ),
    builder("  .usingResilience()\n  .usingToolResultMiddleware()\n  .usingMiddleware(a)\n  .usingMiddleware(b)"),
    builder("  .usingPlugin(audit)\n  .usingPlugin(metrics)"),
    // Two chains, one plugin each.
    `import { usingAgentFramework } from "@needlework/workflows";
usingAgentFramework(a).usingResilience().buildAgentFactory();
usingAgentFramework(b).usingResilience().buildAgentFactory();`,
    javaScript(`import { usingAgentFramework } from "@needlework/workflows";
usingAgentFramework(c).usingResilience().usingTruncation();`),
  ],
  invalid: [
    {
      code: builder("  .usingDiagnostics({ tracer })\n  .usingPlugin(openTelemetry({ tracer }))").replace(
        'import { usingAgentFramework } from "@needlework/workflows";',
        'import { usingAgentFramework } from "@needlework/workflows";\nimport { openTelemetry } from "@needlework/otel";',
      ),
      errors: [{ messageId: "twoTracers", line: 10 }],
    },
    {
      code: builder(
        "  .usingResilience()\n  .usingToolResultMiddleware()\n  .usingResilience({ retry: { maxAttempts: 5 } })",
      ),
      errors: [
        {
          messageId: "duplicate",
          line: 10,
          suggestions: remove("usingResilience()", builder("  .usingResilience()\n  .usingToolResultMiddleware()")),
        },
      ],
    },
    {
      code: builder("  .usingPlugin(auditPlugin)\n  .usingPlugin(auditPlugin)"),
      errors: [
        {
          messageId: "duplicate",
          line: 9,
          data: { plugin: "usingPlugin(auditPlugin)" },
          suggestions: remove("usingPlugin(auditPlugin)", builder("  .usingPlugin(auditPlugin)")),
        },
      ],
    },
    {
      code: builder("  .usingTruncation()\n  .usingTruncation({ maxTokens: 100 })"),
      errors: [
        {
          messageId: "duplicate",
          data: { plugin: "usingTruncation()" },
          suggestions: remove("usingTruncation()", builder("  .usingTruncation()")),
        },
      ],
    },
    {
      code: builder("  .usingRedaction()\n  .usingDiagnostics()\n  .usingRedaction()\n  .usingDiagnostics()"),
      errors: [
        {
          messageId: "duplicate",
          line: 10,
          suggestions: remove(
            "usingRedaction()",
            builder("  .usingRedaction()\n  .usingDiagnostics()\n  .usingDiagnostics()"),
          ),
        },
        {
          messageId: "duplicate",
          line: 11,
          suggestions: remove(
            "usingDiagnostics()",
            builder("  .usingRedaction()\n  .usingDiagnostics()\n  .usingRedaction()"),
          ),
        },
      ],
    },
    {
      code: builder("  .usingToolResultMiddleware()\n  .usingToolResultMiddleware()"),
      errors: [
        {
          messageId: "duplicate",
          suggestions: remove("usingToolResultMiddleware()", builder("  .usingToolResultMiddleware()")),
        },
      ],
    },
    {
      ...javaScript(`import { usingAgentFramework } from "@needlework/workflows";
usingAgentFramework(c).usingResilience().usingResilience();`),
      errors: [
        {
          messageId: "duplicate",
          suggestions: remove(
            "usingResilience()",
            `import { usingAgentFramework } from "@needlework/workflows";
usingAgentFramework(c).usingResilience();`,
          ),
        },
      ],
    },
  ],
});

runsOnJavaScript("no-duplicate-plugin", noDuplicatePlugin);
