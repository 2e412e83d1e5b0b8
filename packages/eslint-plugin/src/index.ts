/**
 * `@needlework/eslint-plugin`: what `buildAgentFactory()` would say at start-up, in the editor.
 *
 * @example
 * ```js
 * // eslint.config.js
 * import needlework from "@needlework/eslint-plugin";
 * export default [needlework.configs["recommended-type-checked"]];
 * ```
 *
 * @packageDocumentation
 */
import * as tsParser from "@typescript-eslint/parser";
import type { TSESLint } from "@typescript-eslint/utils";
// Bundled into dist by the build (esbuild inlines the one field), read from the file in the sources:
// the version is the package's, never a copy of it.
import { version } from "../package.json";
import { declareEffects } from "./rules/declare-effects.js";
import { injectMatchesConstructor } from "./rules/inject-matches-constructor.js";
import { injectionPolicy } from "./rules/injection-policy.js";
import { knownFunctionGroup } from "./rules/known-function-group.js";
import { noBlankToolName } from "./rules/no-blank-tool-name.js";
import { noDuplicatePlugin } from "./rules/no-duplicate-plugin.js";
import { noJsonStringParameter } from "./rules/no-json-string-parameter.js";
import { noSecretParameter } from "./rules/no-secret-parameter.js";
import { noStringifiedResult } from "./rules/no-stringified-result.js";
import { pluginOrder } from "./rules/plugin-order.js";
import { reflectMetadataEntry } from "./rules/reflect-metadata-entry.js";
import { reflectMetadataFirst } from "./rules/reflect-metadata-first.js";
import { requireInject } from "./rules/require-inject.js";
import { strictSchema } from "./rules/strict-schema.js";
import { toolDescription } from "./rules/tool-description.js";
import { toolName } from "./rules/tool-name.js";
import { uniqueAgentName } from "./rules/unique-agent-name.js";
import { uniqueDefinedToolName } from "./rules/unique-defined-tool-name.js";
import { uniqueToolName } from "./rules/unique-tool-name.js";

/**
 * Every rule, by its id without the `needlework/` prefix.
 *
 * @example
 * ```js
 * export default [{ plugins: { needlework }, rules: { "needlework/tool-name": "error" } }];
 * ```
 */
export const rules = {
  "tool-description": toolDescription,
  "tool-name": toolName,
  "no-blank-tool-name": noBlankToolName,
  "unique-tool-name": uniqueToolName,
  "unique-defined-tool-name": uniqueDefinedToolName,
  "no-json-string-parameter": noJsonStringParameter,
  "plugin-order": pluginOrder,
  "no-duplicate-plugin": noDuplicatePlugin,
  "require-inject": requireInject,
  "inject-matches-constructor": injectMatchesConstructor,
  "known-function-group": knownFunctionGroup,
  "unique-agent-name": uniqueAgentName,
  "strict-schema": strictSchema,
  "no-secret-parameter": noSecretParameter,
  "no-stringified-result": noStringifiedResult,
  "reflect-metadata-first": reflectMetadataFirst,
  "reflect-metadata-entry": reflectMetadataEntry,
  "injection-policy": injectionPolicy,
  "declare-effects": declareEffects,
} satisfies Record<string, TSESLint.RuleModule<string, readonly unknown[]>>;

/** A rule id of this plugin, with its prefix. */
export type NeedleworkRuleId = `needlework/${keyof typeof rules}`;

/**
 * How the configs set each rule: errors for what makes needlework refuse the program (the build,
 * a decorator or tsyringe at start-up: an unknown function group, two agents or two tools with one
 * name, a blank tool name, a class nothing can construct or whose `inject` does not fit, tsyringe
 * loaded before its polyfill), warnings for the rest.
 */
const severities: Record<NeedleworkRuleId, "error" | "warn"> = {
  "needlework/tool-description": "warn",
  "needlework/tool-name": "warn",
  "needlework/no-blank-tool-name": "error",
  "needlework/unique-tool-name": "error",
  "needlework/unique-defined-tool-name": "error",
  "needlework/no-json-string-parameter": "warn",
  "needlework/plugin-order": "warn",
  "needlework/no-duplicate-plugin": "warn",
  "needlework/require-inject": "error",
  "needlework/inject-matches-constructor": "error",
  "needlework/known-function-group": "error",
  "needlework/unique-agent-name": "error",
  "needlework/strict-schema": "warn",
  "needlework/no-secret-parameter": "warn",
  "needlework/no-stringified-result": "warn",
  "needlework/reflect-metadata-first": "warn",
  "needlework/reflect-metadata-entry": "error",
  "needlework/injection-policy": "warn",
  "needlework/declare-effects": "warn",
};

/** The plugin object ESLint loads. */
export interface NeedleworkPlugin {
  readonly meta: { readonly name: string; readonly version: string };
  readonly rules: typeof rules;
  readonly configs: {
    /**
     * Every rule, at the severity its defect deserves (an error where `buildAgentFactory()` refuses
     * it), for TypeScript files, with typescript-eslint's parser and no type information required. The
     * rules that need the program (`require-inject`, `known-function-group`, `reflect-metadata-entry`)
     * report nothing unless the parser has one: use `recommended-type-checked`, or turn on
     * `parserOptions.projectService` yourself, for their findings.
     */
    readonly recommended: TSESLint.FlatConfig.Config;
    /**
     * `recommended` and the rules that need the program (`require-inject`, `known-function-group`,
     * `reflect-metadata-entry`), with typescript-eslint's project service: every linted file must
     * belong to a `tsconfig.json` (as typescript-eslint's `recommended-type-checked`).
     */
    readonly "recommended-type-checked": TSESLint.FlatConfig.Config;
  };
}

const TS_FILES = ["**/*.ts", "**/*.tsx", "**/*.mts", "**/*.cts"];

const recommended: TSESLint.FlatConfig.Config = {
  name: "needlework/recommended",
  files: TS_FILES,
  languageOptions: { parser: tsParser },
  rules: severities,
};

const recommendedTypeChecked: TSESLint.FlatConfig.Config = {
  name: "needlework/recommended-type-checked",
  files: TS_FILES,
  languageOptions: {
    parser: tsParser,
    parserOptions: { projectService: true },
  },
  rules: severities,
};

/**
 * The plugin: `rules`, and `configs.recommended` and `configs["recommended-type-checked"]`.
 *
 * @example
 * ```js
 * import needlework from "@needlework/eslint-plugin";
 * export default [needlework.configs["recommended-type-checked"]];
 * ```
 */
const plugin: NeedleworkPlugin = {
  meta: { name: "@needlework/eslint-plugin", version },
  rules,
  configs: { recommended, "recommended-type-checked": recommendedTypeChecked },
};
// The configs name the plugin object they belong to (ESLint's flat-config convention).
for (const config of [recommended, recommendedTypeChecked])
  config.plugins = { needlework: plugin as unknown as TSESLint.FlatConfig.Plugin };

/**
 * `recommended` and `recommended-type-checked` on their own.
 *
 * @example
 * ```js
 * import { configs } from "@needlework/eslint-plugin";
 * export default [configs.recommended];
 * ```
 */
export const configs = plugin.configs;
export default plugin;
