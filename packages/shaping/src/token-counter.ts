import type { Tokenizer } from "./tokenizer.js";

/**
 * Token counts of one truncation, by text: a search that comes back to a text it has counted stops
 * instead of counting it again, and equal list items are counted once.
 * @internal
 */
export class TokenCounter {
  private readonly counted = new Map<string, number>();

  constructor(private readonly tokenizer: Tokenizer) {}

  /** Whether `text` was counted in this truncation. */
  has(text: string): boolean {
    return this.counted.has(text);
  }

  /** The tokens of `text`, counted at most once per truncation. */
  count(text: string): number {
    let tokens = this.counted.get(text);
    if (tokens === undefined) {
      tokens = this.tokenizer.count(text);
      this.counted.set(text, tokens);
    }
    return tokens;
  }
}
