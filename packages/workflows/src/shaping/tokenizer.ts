import { createRequire } from "node:module";

/**
 * The BPE encodings results can be measured in: `o200k_base` (GPT-4o, GPT-4.1, GPT-5, o-series) or
 * `cl100k_base` (GPT-4, GPT-3.5).
 *
 * @example
 * ```ts
 * const encoding: TokenEncoding = "cl100k_base";
 * usingTruncation({ encoding });
 * ```
 */
export type TokenEncoding = "o200k_base" | "cl100k_base";

/**
 * The encodings {@link countTokens} accepts.
 *
 * @example
 * ```ts
 * TOKEN_ENCODINGS.includes(userChoice); // validate a configured encoding
 * ```
 */
export const TOKEN_ENCODINGS: readonly TokenEncoding[] = ["o200k_base", "cl100k_base"];

/** What this module uses of a gpt-tokenizer encoding entry point. @internal */
export interface Tokenizer {
  encode(text: string): number[];
  decode(tokens: readonly number[]): string;
  count(text: string): number;
}

interface EncodingModule {
  encode(text: string, options?: { disallowedSpecial?: Set<string> }): number[];
  decode(tokens: Iterable<number>): string;
  countTokens(text: string, options?: { disallowedSpecial?: Set<string> }): number;
}

// Tool results are data, not prompts: `<|endoftext|>` in a result is plain text, never a special
// token (the library's default would throw on it).
const AS_TEXT = { disallowedSpecial: new Set<string>() };

// Loading a rank table takes far longer than importing the rest of the package (bench `design-choices`),
// so an encoding is loaded on first use, not when @needlework/workflows is imported. The `require` that
// loads it is made from this module's own location: `import.meta.url` in ESM, `__filename` in the
// CommonJS build (where import.meta is empty). A bare `require` would be rewritten by the bundler
// into a stub that throws in ESM.
let load: ((id: string) => unknown) | undefined;
const loader = (): ((id: string) => unknown) =>
  (load ??= createRequire(typeof __filename === "string" && __filename !== "" ? __filename : import.meta.url));

const ENTRY_POINTS: Record<TokenEncoding, string> = {
  o200k_base: "gpt-tokenizer/encoding/o200k_base",
  cl100k_base: "gpt-tokenizer/encoding/cl100k_base",
};

const loaded = new Map<TokenEncoding, Tokenizer>();

/**
 * The tokenizer of an encoding, loaded on first use.
 * @internal
 */
export function tokenizerFor(encoding: TokenEncoding): Tokenizer {
  const cached = loaded.get(encoding);
  if (cached) return cached;
  const entry = ENTRY_POINTS[encoding];
  if (entry === undefined)
    throw new TypeError(
      `Unknown token encoding ${JSON.stringify(encoding)}: use one of ${TOKEN_ENCODINGS.join(", ")}.`,
    );
  const mod = loader()(entry) as EncodingModule;
  const tokenizer: Tokenizer = {
    encode: (text) => mod.encode(text, AS_TEXT),
    decode: (tokens) => mod.decode(tokens),
    count: (text) => mod.countTokens(text, AS_TEXT),
  };
  loaded.set(encoding, tokenizer);
  return tokenizer;
}

/**
 * Counts the tokens of `text` with a real BPE tokenizer (gpt-tokenizer). Special-token text such as
 * `<|endoftext|>` is counted as ordinary text.
 *
 * @example
 * ```ts
 * countTokens("Order ORD-1 has shipped.");               // o200k_base
 * countTokens("Order ORD-1 has shipped.", "cl100k_base");
 * ```
 */
export function countTokens(text: string, encoding: TokenEncoding = "o200k_base"): number {
  return tokenizerFor(encoding).count(text);
}
