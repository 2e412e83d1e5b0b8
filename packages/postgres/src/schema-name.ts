import { InvalidOptionError } from "@needlework/core";

const IDENTIFIER = /^[a-z_][a-z0-9_]{0,62}$/;

/**
 * A schema name checked to be a plain lower-case identifier, quoted for SQL.
 * @internal
 */
export function quotedSchema(owner: string, schema: string): string {
  if (typeof schema !== "string" || !IDENTIFIER.test(schema)) {
    throw new InvalidOptionError(
      "schema",
      schema,
      `${owner}: option 'schema' must be a lower-case identifier (letters, digits, _; at most 63), ` +
        `got ${JSON.stringify(schema)}.`,
    );
  }
  return `"${schema}"`;
}
