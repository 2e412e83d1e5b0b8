/**
 * `@needlework/shaping/internal`: what the truncation and redaction plugins of
 * `@needlework/workflows` use beside the public entry. Not part of the public API: names here may
 * change in any release.
 *
 * @example
 * ```ts
 * import { createTruncator, resolveTruncationOptions } from "@needlework/shaping/internal";
 * const truncate = createTruncator(resolveTruncationOptions({ maxTokens: 500 }));
 * ```
 * @packageDocumentation
 */
export { surelyFits } from "./surely-fits.js";
export { assertTokenizerInstalled } from "./tokenizer.js";
export { createTruncator, truncatePlainText } from "./truncate-value.js";
export { type ResolvedTruncationOptions, resolveTruncationOptions } from "./truncation.options.js";
export { type ResolvedRedactionOptions, resolveRedactionOptions } from "./redaction.options.js";
