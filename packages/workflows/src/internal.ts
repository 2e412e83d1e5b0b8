/**
 * Internals shared between needlework packages (for example `@needlework/postgres`). Not part of the
 * public API: names here may change in any release.
 * @internal
 * @packageDocumentation
 */
export { parseOptions } from "./options/parse-options.js";
export { runBusy } from "./agent/durable/run-store-error.js";
export { storedResult } from "./agent/durable/stored-result.js";
export { codecJournal, openDeadLetter, PayloadSealer, sealDeadLetter } from "./agent/durable/codec-journal.js";
export { checkRunQuery, cursorAfter, RUNNING } from "./agent/durable/run-list.js";
export { payloadCodecOption } from "./agent/durable/payload-codec.js";
export { ownOptions } from "./agent/durable/own-options.js";
