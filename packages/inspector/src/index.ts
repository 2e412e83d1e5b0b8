/**
 * `@needlework/inspector`: see what a run did, and act on it. A page over a store's run journal and
 * dead letters.
 *
 * @example
 * ```ts
 * import { startInspector } from "@needlework/inspector";
 * const inspector = await startInspector({ store, agents: [support] });
 * console.log(`open ${inspector.url}`);
 * ```
 *
 * @packageDocumentation
 */
export type { ActionLog } from "./action-log.js";
export type { ToolHealth } from "@needlework/durable";
export type { InspectedAgent } from "./inspected-agent.js";
export { type Inspector, type InspectorOptions, startInspector } from "./inspector.js";
export type { ActionRecord } from "./run-view.js";
export { InspectorStartError, type InspectorStartErrorCode } from "./start-error.js";
