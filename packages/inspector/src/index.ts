/**
 * `@needlework/inspector`: see what a run did. A page over a store's run journal and dead letters.
 *
 * @example
 * ```ts
 * import { startInspector } from "@needlework/inspector";
 * const inspector = await startInspector({ store });
 * console.log(`open ${inspector.url}`);
 * ```
 *
 * @packageDocumentation
 */
export { type Inspector, type InspectorOptions, startInspector } from "./inspector.js";
