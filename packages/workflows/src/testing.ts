/**
 * `@needlework/workflows/testing`: helpers for your own tests of agents and tools built with
 * needlework (fault injection, scripted models, scenario runs, tool runs, a manual clock). Not
 * needed at run time.
 *
 * @example
 * ```ts
 * import { chaosPlugin, seededRandom } from "@needlework/workflows/testing";
 * ```
 * @packageDocumentation
 */
export {
  chaos,
  chaosPlugin,
  createChaos,
  seededRandom,
  type ChaosEvent,
  type ChaosFaultKind,
  type ChaosFaults,
  type ChaosLatencyFault,
  type ChaosMiddleware,
  type ChaosOptions,
  type ChaosPlugin,
  type ChaosStats,
  type ChaosTransientFault,
} from "./testing/chaos.js";
export {
  ScriptedChatClient,
  ScriptExhaustedError,
  type ScriptedChatClientOptions,
  type ScriptedStep,
  type ScriptedToolCall,
  type ScriptedTurn,
} from "@needlework/core";
export { ManualClock } from "./testing/manual-clock.js";
export {
  type AgentScenario,
  type ExpectedCall,
  runScenario,
  type ScenarioAgent,
  type ScenarioCall,
  type ScenarioExpectations,
  ScenarioFailedError,
  type ScenarioReport,
} from "./testing/scenario.js";
export {
  createToolRunner,
  invokeTool,
  type ToolRunner,
  type ToolRunnerOptions,
  type ToolRunnerPipeline,
} from "./testing/tool-runner.js";
