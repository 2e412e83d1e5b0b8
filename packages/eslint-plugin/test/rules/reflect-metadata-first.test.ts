import { reflectMetadataFirst } from "../../src/rules/reflect-metadata-first.js";
import { javaScript, ruleTester, runsOnJavaScript } from "../rule-tester.js";

ruleTester().run("reflect-metadata-first", reflectMetadataFirst, {
  valid: [
    `import "reflect-metadata";\nimport { container } from "tsyringe";\nimport { usingAgentFramework } from "@needlework/workflows";`,
    // Type-only imports load nothing.
    `import type { ToolOutcome } from "@needlework/core";\nimport "reflect-metadata";`,
    // A module without reflect-metadata relies on its entry point: reflect-metadata-entry's business.
    `import { container } from "tsyringe";`,
    `import { z } from "zod";\nimport "reflect-metadata";\nimport { container } from "tsyringe";`,
    javaScript(`import "reflect-metadata";\nimport { container } from "tsyringe";`),
  ],
  invalid: [
    {
      code: `import { container } from "tsyringe";\nimport { z } from "zod";\nimport "reflect-metadata";\nexport { container, z };\n`,
      output: `import "reflect-metadata";\nimport { container } from "tsyringe";\nimport { z } from "zod";\nexport { container, z };\n`,
      errors: [{ messageId: "late", line: 3, data: { first: "tsyringe" } }],
    },
    {
      code: `import { AgentFunction } from "@needlework/core";\nimport "reflect-metadata";\n`,
      output: `import "reflect-metadata";\nimport { AgentFunction } from "@needlework/core";\n`,
      errors: [{ messageId: "late", data: { first: "@needlework/core" } }],
    },
    {
      // A re-export loads the module too.
      code: `export { usingAgentFramework } from "@needlework/workflows";\nimport "reflect-metadata";\n`,
      output: `import "reflect-metadata";\nexport { usingAgentFramework } from "@needlework/workflows";\n`,
      errors: [{ messageId: "late", data: { first: "@needlework/workflows" } }],
    },
    {
      code: `import * as nw from "@needlework/core";\nimport { container } from "tsyringe";\nimport "reflect-metadata";\n`,
      output: `import "reflect-metadata";\nimport * as nw from "@needlework/core";\nimport { container } from "tsyringe";\n`,
      errors: [{ messageId: "late", line: 3, data: { first: "@needlework/core" } }],
    },
    {
      code: `import type { Agent } from "@needlework/workflows";\nimport { container } from "tsyringe";\nimport Reflect from "reflect-metadata";\n`,
      output: `import type { Agent } from "@needlework/workflows";\nimport Reflect from "reflect-metadata";\nimport { container } from "tsyringe";\n`,
      errors: [{ messageId: "late", data: { first: "tsyringe" } }],
    },
    {
      ...javaScript(`import { container } from "tsyringe";\nimport "reflect-metadata";\n`),
      output: `import "reflect-metadata";\nimport { container } from "tsyringe";\n`,
      errors: [{ messageId: "late", data: { first: "tsyringe" } }],
    },
  ],
});

// Plain JavaScript (JAVASCRIPT_APP) imports tsyringe before reflect-metadata: reported there too.
runsOnJavaScript("reflect-metadata-first", reflectMetadataFirst, ["late"]);
