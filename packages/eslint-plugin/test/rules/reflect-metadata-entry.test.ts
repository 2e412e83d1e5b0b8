import { reflectMetadataEntry } from "../../src/rules/reflect-metadata-entry.js";
import { javaScript, ruleTester, runsOnJavaScript } from "../rule-tester.js";

// The linted file (fixtures/standard/file.ts) is an entry point: no module of the fixture imports it.
// container.ts loads tsyringe and no polyfill; setup.ts loads reflect-metadata; groups.ts loads @needlework/core.
const add = (code: string) => [{ messageId: "addImport" as const, output: `import "reflect-metadata";\n${code}` }];
const missing = (code: string, line: number, through = "") => ({
  code,
  errors: [{ messageId: "missing" as const, line, data: { through }, suggestions: add(code) }],
});

ruleTester().run("reflect-metadata-entry", reflectMetadataEntry, {
  valid: [
    `import "reflect-metadata";\nimport { container } from "tsyringe";\nexport const c = container;`,
    // Through a module of the program that loads it first.
    `import "./setup.js";\nimport { container } from "tsyringe";\nexport const c = container;`,
    // @needlework/core loads reflect-metadata before tsyringe.
    `import { usingAgentFramework } from "@needlework/workflows";\nimport { container } from "tsyringe";\nexport const f = usingAgentFramework(container);`,
    `import { OrderTools } from "./groups.js";\nimport { appContainer } from "./container.js";\nexport { OrderTools, appContainer };`,
    // Type-only imports load nothing.
    `import type { DependencyContainer } from "tsyringe";\nexport type C = DependencyContainer;`,
    // Another polyfill tsyringe accepts.
    `import "@abraham/reflection";\nimport { container } from "tsyringe";\nexport const c = container;`,
    // Without the program, which modules import which is unknown: nothing is said.
    javaScript(`import { container } from "tsyringe";\nexport const c = container;`),
  ],
  invalid: [
    missing(
      `import { container } from "tsyringe";\nimport { usingAgentFramework } from "@needlework/workflows";\nexport const f = usingAgentFramework(container);`,
      1,
    ),
    missing(`import { z } from "zod";\nimport { container } from "tsyringe";\nexport const c = [z, container];`, 2),
    missing(`export { container } from "tsyringe";`, 1),
    // Through another module of the program: container.ts loads tsyringe before anything loads the polyfill.
    missing(
      `import { appContainer } from "./container.js";\nimport { OrderTools } from "./groups.js";\nexport { OrderTools, appContainer };`,
      1,
      " (through container.ts)",
    ),
    missing(`import "./container.js";\nimport "reflect-metadata";`, 1, " (through container.ts)"),
  ],
});

runsOnJavaScript("reflect-metadata-entry", reflectMetadataEntry);
