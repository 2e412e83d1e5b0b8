import { join } from "node:path";
import { RuleTester } from "@typescript-eslint/rule-tester";
import { afterAll, describe, it } from "vitest";

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
