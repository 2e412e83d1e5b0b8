import { createToolInvoker, type ToolClass, type ToolInvoker } from "@needlework/core";
import {
  type AgentFactory,
  type AgentFrameworkBuilder,
  type ResilienceOptions,
  usingAgentFramework,
} from "@needlework/workflows";
import { container } from "tsyringe";
import { AddTools } from "./add-tools.js";

/** `usingDiagnostics()` as the builder may or may not have it yet (it is being added). */
type MaybeDiagnostics = { usingDiagnostics?: (options?: unknown) => AgentFrameworkBuilder };

/** Whether this build of @needlework/workflows offers `usingDiagnostics()`. */
export const HAS_DIAGNOSTICS =
  typeof (usingAgentFramework() as unknown as MaybeDiagnostics).usingDiagnostics === "function";

/** The bare invoker: validation and the tool, no middleware. */
export function bareInvoker(): ToolInvoker {
  return createToolInvoker(container.createChildContainer(), { functions: [AddTools] });
}

/** The documented stack: validation, resilience (defaults), the tool-result middleware; over `tools` (default the add tool). */
export function documentedStack(resilience?: ResilienceOptions, tools: ToolClass = AddTools): AgentFactory {
  return usingAgentFramework(container.createChildContainer())
    .addAgentFunctions(tools)
    .usingResilience(resilience)
    .usingToolResultMiddleware()
    .buildAgentFactory();
}

/** The full stack: the documented one plus truncation, redaction and (when it exists) diagnostics. */
export function fullStack(resilience?: ResilienceOptions, tools: ToolClass = AddTools): AgentFactory {
  const builder = usingAgentFramework(container.createChildContainer())
    .addAgentFunctions(tools)
    .usingResilience(resilience)
    .usingToolResultMiddleware()
    .usingTruncation()
    .usingRedaction();
  const withDiagnostics = HAS_DIAGNOSTICS
    ? (builder as unknown as Required<MaybeDiagnostics>).usingDiagnostics()
    : builder;
  return withDiagnostics.buildAgentFactory();
}

/** What the full stack holds, for table labels. */
export const FULL_STACK_LABEL = HAS_DIAGNOSTICS
  ? "+ truncation, redaction, diagnostics"
  : "+ truncation, redaction (no usingDiagnostics yet)";

/**
 * Keeps the breaker of an always-failing tool closed, so every call takes the exception-to-envelope
 * path rather than the open circuit's fail-fast path (which has its own row).
 */
export const BREAKER_NEVER_OPENS: ResilienceOptions = { circuitBreaker: { consecutiveFailures: 1_000_000_000 } };
