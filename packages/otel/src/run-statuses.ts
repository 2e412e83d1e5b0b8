/**
 * `gen_ai.provider.name` when a `ChatClient` does not name its provider (the conventions require the
 * attribute on `chat` and `invoke_agent` spans).
 * @internal
 */
export const UNKNOWN_PROVIDER = "unknown";

/**
 * The run statuses that are not failures: a run that ended `completed`, `completed_with_failures`
 * (the model was told of its failed calls) or `awaiting_approval`. Any other (`escalated`,
 * `dead_lettered`, `max_iterations`, and statuses added later, such as the limits') marks the
 * `invoke_agent` span ERROR and logs its diagnostics line as a warning: a subscriber of your own
 * (`RunTelemetry.onRunEnd`) tells failed runs apart by the same rule.
 *
 * @example
 * ```ts
 * const counter: RunTelemetry = {
 *   onRunEnd: ({ agent, result }) => metrics.count(agent, SETTLED_RUN_STATUSES.has(result.status) ? "ok" : "failed"),
 * };
 * ```
 */
export const SETTLED_RUN_STATUSES: ReadonlySet<string> = new Set([
  "completed",
  "completed_with_failures",
  "awaiting_approval",
]);
