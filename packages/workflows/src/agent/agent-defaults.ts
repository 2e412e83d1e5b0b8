import type { RoundPolicy } from "@needlework/core";
import { DEFAULT_STALL_THRESHOLD } from "./policies/stall.js";

/**
 * The defaults of {@link CreateAgentOptions}.
 *
 * @example
 * ```ts
 * AGENT_DEFAULTS.maxIterations; // 10
 * ```
 */
export const AGENT_DEFAULTS = Object.freeze({
  maxIterations: 10,
  maxConcurrency: 8,
  maxToolCallsPerTurn: 128,
  roundPolicy: "best-effort" as RoundPolicy,
  poisonThreshold: 3,
  stallThreshold: DEFAULT_STALL_THRESHOLD,
  checkpointMaxAgeMs: 7 * 24 * 60 * 60 * 1000,
});
