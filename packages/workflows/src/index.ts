export * from "./builder/index.js";
export * from "./tool-result/index.js";
export * from "./resilience/index.js";
export * from "./shaping/index.js";
export * from "./agent/index.js";
export * from "./diagnostics/index.js";
export * from "./observability/index.js";
export type { AgentFrameworkPlugin, BuildDiagnostic, BuildDiagnosticSeverity, PluginContext } from "./plugin.js";
export { parseOptions } from "./options/parse-options.js";
