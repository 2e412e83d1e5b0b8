import { createRequire } from "node:module";
import { NeedleworkError } from "@needlework/core";

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
let load: NodeJS.Require | undefined;
const loader = (): NodeJS.Require =>
  (load ??= createRequire(typeof __filename === "string" && __filename !== "" ? __filename : import.meta.url));

const ENTRY_POINTS: Record<TokenEncoding, string> = {
  o200k_base: "gpt-tokenizer/encoding/o200k_base",
  cl100k_base: "gpt-tokenizer/encoding/cl100k_base",
};

const loaded = new Map<TokenEncoding, Tokenizer>();

/**
 * The code of the error thrown when token counting is configured (`usingTruncation()`, `countTokens`)
 * but gpt-tokenizer, an optional peer dependency of @needlework/shaping, is not installed.
 *
 * @example
 * ```ts
 * try { builder.usingTruncation(); }
 * catch (e) { if (NeedleworkError.isInstance(e) && e.code === TOKENIZER_NOT_INSTALLED) console.error(e.message); }
 * ```
 */
export const TOKENIZER_NOT_INSTALLED = "TOKENIZER_NOT_INSTALLED";

function isModuleMissing(error: unknown, entry: string): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  // Only gpt-tokenizer itself missing: a missing module inside an installed copy is another fault.
  return (
    (code === "MODULE_NOT_FOUND" || code === "ERR_MODULE_NOT_FOUND") &&
    error instanceof Error &&
    error.message.includes(`'${entry}'`)
  );
}

function notInstalled(cause: unknown): NeedleworkError {
  return new NeedleworkError(
    TOKENIZER_NOT_INSTALLED,
    "Token-based truncation counts tokens with the gpt-tokenizer package, which is not installed: " +
      "run `npm install gpt-tokenizer` (an optional peer dependency of @needlework/shaping and @needlework/workflows, " +
      "needed only when results are truncated).",
    { cause },
  );
}

function checkedEncoding(encoding: TokenEncoding): string {
  const entry = ENTRY_POINTS[encoding];
  if (entry === undefined)
    throw new TypeError(
      `Unknown token encoding ${JSON.stringify(encoding)}: use one of ${TOKEN_ENCODINGS.join(", ")}.`,
    );
  return entry;
}

/**
 * Checks that gpt-tokenizer can be loaded for `encoding`, without loading its rank table (that
 * waits for the first count). `usingTruncation()` calls it, so a missing optional peer dependency is
 * reported when truncation is configured, not at the first long result.
 * @internal
 */
export function assertTokenizerInstalled(encoding: TokenEncoding): void {
  if (loaded.has(encoding)) return;
  const entry = checkedEncoding(encoding);
  try {
    loader().resolve(entry);
  } catch (error) {
    throw isModuleMissing(error, entry) ? notInstalled(error) : error;
  }
}

/**
 * The tokenizer of an encoding, loaded on first use.
 * @internal
 */
export function tokenizerFor(encoding: TokenEncoding): Tokenizer {
  const cached = loaded.get(encoding);
  if (cached) return cached;
  const entry = checkedEncoding(encoding);
  let mod: EncodingModule;
  try {
    mod = loader()(entry) as EncodingModule;
  } catch (error) {
    throw isModuleMissing(error, entry) ? notInstalled(error) : error;
  }
  const tokenizer: Tokenizer = {
    encode: (text) => mod.encode(text, AS_TEXT),
    decode: (tokens) => mod.decode(tokens),
    count: (text) => mod.countTokens(text, AS_TEXT),
  };
  loaded.set(encoding, tokenizer);
  return tokenizer;
}

/**
 * Counts the tokens of `text` with a real BPE tokenizer (gpt-tokenizer, an optional peer dependency:
 * without it this throws a `NeedleworkError` with code {@link TOKENIZER_NOT_INSTALLED}). Special-token
 * text such as `<|endoftext|>` is counted as ordinary text.
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
