import { createHash } from "node:crypto";

/** The names every major provider accepts for a tool (OpenAI, Anthropic, Gemini). */
const PROVIDER_NAME = /^[a-zA-Z0-9_-]{1,64}$/;
const MAX = 64;

const shortHash = (text: string): string => createHash("sha256").update(text).digest("hex").slice(0, 8);

/**
 * The name a remote tool is published under: `${server}_${tool}` cut to the providers' rules
 * (`^[a-zA-Z0-9_-]{1,64}$`): any other character becomes `_`, and a name past 64 characters keeps
 * its first 55 and ends with `_` and 8 hex characters of its full name's hash, so two long names stay
 * apart. `taken` holds the names already given on this server: a second tool that would publish
 * the same name gets the hash suffix too. @internal
 *
 * @example
 * ```ts
 * publishedName("shop", "get.order", new Set()); // "shop_get_order"
 * ```
 */
export function publishedName(server: string, tool: string, taken: ReadonlySet<string>): string {
  const full = `${server}_${tool}`;
  let name = full.replace(/[^a-zA-Z0-9_-]/g, "_");
  if (name.length > MAX || taken.has(name)) name = `${name.slice(0, MAX - 9)}_${shortHash(full)}`;
  return name;
}

/**
 * Checks the name a server is connected under: it prefixes every tool's published name, so it
 * must itself fit the providers' rules (and leave room for the tool's own name). @internal
 *
 * @example
 * ```ts
 * checkServerName("shop"); // ok; checkServerName("my shop") throws
 * ```
 */
export function checkServerName(name: unknown): asserts name is string {
  if (typeof name !== "string" || !PROVIDER_NAME.test(name) || name.length > 32) {
    throw new TypeError(
      `connectMcpServer: the server's name must be 1-32 characters of letters, digits, '_' or '-' (it prefixes every tool's name as \`\${name}_\${tool}\`), got ${JSON.stringify(name)}.`,
    );
  }
}
