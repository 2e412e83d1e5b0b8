import { join } from "node:path";
import { RuleTester, type ValidTestCase } from "@typescript-eslint/rule-tester";
import type { TSESLint } from "@typescript-eslint/utils";
import { type ESLint, Linter } from "eslint";
import { afterAll, describe, expect, it } from "vitest";

RuleTester.afterAll = afterAll;
RuleTester.describe = describe;
RuleTester.it = it;
RuleTester.itOnly = it.only;

const fixtures = join(import.meta.dirname, "fixtures");

/** A RuleTester with type information from a fixture project: `standard` decorators, or `metadata` (emitDecoratorMetadata). */
export function ruleTester(project: "standard" | "metadata" = "standard"): RuleTester {
  return new RuleTester({
    languageOptions: {
      parserOptions: {
        projectService: true,
        tsconfigRootDir: join(fixtures, project),
      },
    },
  });
}

/** The file each case is linted as (its text is the case's code). */
export const fileIn = (project: "standard" | "metadata" = "standard"): string => join(fixtures, project, "file.ts");

/**
 * A case linted as a `.js` file by typescript-eslint's parser with no program (what a project
 * without `allowJs`, or a config without the project service, gives): decorators parse, types do not
 * exist. Type-aware rules must report nothing here, and no rule may throw.
 */
export function javaScript(code: string): Pick<ValidTestCase<[]>, "code" | "filename" | "languageOptions"> {
  return {
    code,
    filename: join(fixtures, "standard", "file.js"),
    languageOptions: { parserOptions: { projectService: false, project: null } },
  };
}

/**
 * Lints `code` as a `.js` file under ESLint's own parser (espree: no parser services at all), with
 * only `rule` on, and returns what it reports. ESLint rethrows what a rule throws, so a rule that
 * needs type information and crashes makes this throw.
 */
export function lintWithEspree(
  name: string,
  rule: TSESLint.RuleModule<string, readonly unknown[]>,
  code: string,
): Linter.LintMessage[] {
  const linter = new Linter({ configType: "flat" });
  return linter.verify(
    code,
    [
      {
        files: ["**/*.js"],
        plugins: { needlework: { rules: { [name]: rule } } as unknown as ESLint.Plugin },
        rules: { [`needlework/${name}`]: "error" },
      },
    ],
    "app.js",
  );
}

/** Plain JavaScript that builds an agent framework (no decorators: espree does not parse them). */
export const JAVASCRIPT_APP = `import { container } from "tsyringe";
import { AgentFunctionGroup } from "@needlework/core";
import { usingAgentFramework } from "@needlework/workflows";
import "reflect-metadata";

class OrderTools {
  constructor(orders) { this.orders = orders; }
  getOrder({ orderId }) { return JSON.stringify(this.orders.find(orderId)); }
}
AgentFunctionGroup({ groups: ["orders"], inject: ["OrderRepository", "Clock"] })(OrderTools);

export const factory = usingAgentFramework(container)
  .addAgentFunctions(OrderTools, OrderTools)
  .usingToolResultMiddleware()
  .usingResilience()
  .buildAgentFactory();
export const agent = factory.createAgent({ name: "support", instructions: "Helps.", functionGroups: ["cmr"] });
`;

/**
 * The `.js` checks every rule's tests make: under espree the rule neither throws nor reports
 * (`expected` lists what a rule that reads plain JavaScript must find there).
 */
export function runsOnJavaScript(
  name: string,
  rule: TSESLint.RuleModule<string, readonly unknown[]>,
  expected: readonly string[] = [],
): void {
  describe(`${name} on a .js file under ESLint's own parser`, () => {
    it("does not crash, and reports only what plain JavaScript shows", () => {
      const messages = lintWithEspree(name, rule, JAVASCRIPT_APP);
      expect(messages.filter((m) => m.fatal)).toEqual([]);
      expect(messages.map((m) => m.messageId)).toEqual(expected);
    });
  });
}
