/**
 * `gen_ai.provider.name` when a `ChatClient` does not name its provider (the conventions require the
 * attribute on `chat` and `invoke_agent` spans).
 * @internal
 */
export const UNKNOWN_PROVIDER = "unknown";

/**
 * Run statuses that do not mark the `invoke_agent` span as an error; any other (escalated,
 * dead_lettered, max_iterations, and statuses added later, such as limits) does.
 * @internal
 */
export const SETTLED_RUN_STATUSES: ReadonlySet<string> = new Set([
  "completed",
  "completed_with_failures",
  "awaiting_approval",
]);
