import { ESLintUtils } from "@typescript-eslint/utils";

/** What every rule's `meta.docs` carries besides the description. */
export interface NeedleworkRuleDocs {
  /** The build diagnostic `buildAgentFactory()` reports for the same defect, when there is one. */
  readonly buildDiagnostic?: `NW0${number}`;
  /** Needs type information (typescript-eslint's parser services with a program). */
  readonly requiresTypeChecking?: boolean;
}

/**
 * Makes a rule whose docs link to its page under docs/eslint/, as a `file:` URL of the page this
 * package ships (`node_modules/@needlework/eslint-plugin/docs/eslint/<rule>.md`): there is no public
 * site, and an editor opens a file URL as well as any other.
 *
 * @example
 * export const rule = createRule({ name: "tool-name", meta: { ... }, defaultOptions: [], create(context) { ... } });
 */
export const createRule = ESLintUtils.RuleCreator<NeedleworkRuleDocs>(
  (name) => new URL(`../docs/eslint/${name}.md`, import.meta.url).href,
);
