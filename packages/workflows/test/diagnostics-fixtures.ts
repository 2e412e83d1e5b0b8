import { container } from "tsyringe";
import { type AgentFrameworkBuilder, usingAgentFramework } from "../src/builder/index.js";
import type { ResilienceOptions } from "../src/resilience/index.js";
import { CrmTools, LedgerTools, PaymentTools, SearchTools, ToolWorld } from "./agent-fixtures.js";

/** Resilience that retries at once and sets no timer: tests stay on real time without waiting. */
export const RETRY_AT_ONCE: ResilienceOptions = Object.freeze({
  retry: { maxAttempts: 3, baseDelayMs: 0, maxDelayMs: 0 },
  attemptTimeoutMs: false,
  totalTimeoutMs: false,
  circuitBreaker: false,
});

/** The agent fixture tools behind a composition the test chooses. */
export function diagnosticsHarness(configure: (builder: AgentFrameworkBuilder) => AgentFrameworkBuilder) {
  const world = new ToolWorld();
  const child = container.createChildContainer();
  child.register(ToolWorld, { useValue: world });
  const factory = configure(
    usingAgentFramework(child).addAgentFunctions(CrmTools, LedgerTools, SearchTools, PaymentTools),
  ).buildAgentFactory({ printDiagnostics: false }); // the fixture's tools are terse on purpose (NW003)
  return { world, factory };
}
