/**
 * `@needlework/eslint-plugin`: what `buildAgentFactory()` would say at start-up, in the editor.
 *
 * @example
 * ```js
 * // eslint.config.js
 * import needlework from "@needlework/eslint-plugin";
 * export default [needlework.configs.recommended];
 * ```
 *
 * @packageDocumentation
 */
import * as tsParser from "@typescript-eslint/parser";
import type { TSESLint } from "@typescript-eslint/utils";
import { injectMatchesConstructor } from "./rules/inject-matches-constructor.js";
import { knownFunctionGroup } from "./rules/known-function-group.js";
import { noDuplicatePlugin } from "./rules/no-duplicate-plugin.js";
import { noJsonStringParameter } from "./rules/no-json-string-parameter.js";
import { noSecretParameter } from "./rules/no-secret-parameter.js";
import { noStringifiedResult } from "./rules/no-stringified-result.js";
import { pluginOrder } from "./rules/plugin-order.js";
import { reflectMetadataFirst } from "./rules/reflect-metadata-first.js";
import { requireInject } from "./rules/require-inject.js";
import { strictSchema } from "./rules/strict-schema.js";
import { toolDescription } from "./rules/tool-description.js";
import { toolName } from "./rules/tool-name.js";
import { uniqueAgentName } from "./rules/unique-agent-name.js";

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
} satisfies Record<string, TSESLint.RuleModule<string, readonly unknown[]>>;

/** A rule id of this plugin, with its prefix. */
export type NeedleworkRuleId = `needlework/${keyof typeof rules}`;

/**
 * How `recommended` sets each rule: errors for what makes `buildAgentFactory()` refuse the
 * program (an unknown function group, two agents with one name, a class nothing can construct),
 * warnings for the rest.
 */
const severities: Record<NeedleworkRuleId, "error" | "warn"> = {
  "needlework/tool-description": "warn",
  "needlework/tool-name": "warn",
  "needlework/no-json-string-parameter": "warn",
  "needlework/plugin-order": "warn",
  "needlework/no-duplicate-plugin": "warn",
  "needlework/require-inject": "error",
  "needlework/inject-matches-constructor": "warn",
  "needlework/known-function-group": "error",
  "needlework/unique-agent-name": "error",
  "needlework/strict-schema": "warn",
  "needlework/no-secret-parameter": "warn",
  "needlework/no-stringified-result": "warn",
  "needlework/reflect-metadata-first": "warn",
};

/** The plugin object ESLint loads. */
export interface NeedleworkPlugin {
  readonly meta: { readonly name: string; readonly version: string };
  readonly rules: typeof rules;
  readonly configs: {
    /**
     * Every rule on, for TypeScript files, with typescript-eslint's parser and its project service
     * (type information for `require-inject`, `inject-matches-constructor`, `known-function-group`).
     */
    readonly recommended: TSESLint.FlatConfig.Config;
  };
}

const recommended: TSESLint.FlatConfig.Config = {
  name: "needlework/recommended",
  files: ["**/*.ts", "**/*.tsx", "**/*.mts", "**/*.cts"],
  languageOptions: {
    parser: tsParser,
    parserOptions: { projectService: true },
  },
  rules: severities,
};

/**
 * The plugin: `rules` and `configs.recommended`.
 *
 * @example
 * ```js
 * import needlework from "@needlework/eslint-plugin";
 * export default [needlework.configs.recommended];
 * ```
 */
const plugin: NeedleworkPlugin = {
  meta: { name: "@needlework/eslint-plugin", version: "0.1.0" },
  rules,
  configs: { recommended },
};
// The config names the plugin object it belongs to (ESLint's flat-config convention).
recommended.plugins = { needlework: plugin as unknown as TSESLint.FlatConfig.Plugin };

/** `recommended` on its own, for `export default [recommended]`. */
export const configs = plugin.configs;
export default plugin;
