export {
  AgentFrameworkBuilder,
  type BuildAgentFactoryOptions,
  usingAgentFramework,
} from "./agent-framework.builder.js";
export type { AgentFactory, AgentOptions, AgentOverrides, PipelineStage } from "./agent-factory.js";
export type { DeclaredAgentInfo } from "./agent-diagnostics.js";
export { BUILD_DIAGNOSTIC_IDS, type BuildDiagnosticId, PROVIDER_TOOL_NAME } from "./build-diagnostics.js";
export { AgentFrameworkBuildError } from "./build-error.js";
