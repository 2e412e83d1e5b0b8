/**
 * Internals shared between needlework packages. Not part of the public API: names here may change
 * in any release. The run-store helpers that once lived here are documented exports of
 * `@needlework/durable`; option parsing is on `@needlework/core/internal`.
 * @internal
 * @packageDocumentation
 */
export { parseOptions } from "./options/parse-options.js";
