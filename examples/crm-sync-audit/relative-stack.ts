import { fileURLToPath } from "node:url";

// The repository root, from this file's place in it: examples/crm-sync-audit/ in the sources, examples/dist/
// once bundled. Both are two levels down.
const root = fileURLToPath(new URL("../..", import.meta.url));
const rootUrl = new URL("../..", import.meta.url).href;

/**
 * An exception as the raw build hands it to the model: its stack, with file locations written relative to the
 * repository, so what the model reads (and the audit's character count) does not depend on where the clone is.
 *
 * @example
 * ```ts
 * relativeStack(new Error("boom")); // "Error: boom\n    at ... (examples/dist/crm-sync-audit.js:12:3)"
 * ```
 */
export function relativeStack(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  return (error.stack ?? String(error)).replaceAll(rootUrl, "").replaceAll(root, "");
}
