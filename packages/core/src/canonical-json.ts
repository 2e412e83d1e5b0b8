/**
 * JSON with object keys sorted at every level, so equal values give equal text. Used to compare
 * tool arguments ("the same call") and to sign checkpoints.
 * Part of `@needlework/core/kit`.
 */
export function canonicalJson(value: unknown): string {
  // Built as text, not through an object with sorted keys: assigning `sorted["__proto__"]` sets a
  // prototype instead of a key, so that key would silently drop out of a signature.
  return write(value, new Set()) ?? "null";
}

function write(input: unknown, seen: Set<object>): string | undefined {
  let value = input;
  if (value !== null && typeof value === "object" && typeof (value as { toJSON?: unknown }).toJSON === "function") {
    value = (value as { toJSON: () => unknown }).toJSON();
  }
  if (value === null) return "null";
  switch (typeof value) {
    case "string":
    case "boolean":
      return JSON.stringify(value);
    case "number":
      return Number.isFinite(value) ? JSON.stringify(value) : "null";
    case "bigint":
      throw new TypeError("Do not know how to serialize a BigInt");
    case "object":
      break;
    default:
      return undefined;
  }
  const object = value as object;
  if (seen.has(object)) throw new TypeError("Converting circular structure to JSON");
  seen.add(object);
  try {
    if (Array.isArray(object)) {
      const items: string[] = [];
      for (let i = 0; i < object.length; i++) items.push(write(object[i], seen) ?? "null");
      return `[${items.join(",")}]`;
    }
    const parts: string[] = [];
    const source = object as Record<string, unknown>;
    for (const key of Object.keys(source).sort()) {
      const text = write(source[key], seen);
      if (text !== undefined) parts.push(`${JSON.stringify(key)}:${text}`);
    }
    return `{${parts.join(",")}}`;
  } finally {
    seen.delete(object);
  }
}

/** Arguments as an object when the model sent parseable JSON text; otherwise as given. Part of `@needlework/core/kit`. */
export function parsedArguments(args: unknown): unknown {
  if (typeof args !== "string") return args;
  try {
    return JSON.parse(args) as unknown;
  } catch {
    return args;
  }
}

/**
 * The identity of a call for "the same tool with equal arguments": the tool name and the
 * canonical JSON of its parsed arguments (`'{"b":1,"a":2}'` equals `{ a: 2, b: 1 }`).
 * Part of `@needlework/core/kit`.
 */
export function callKey(tool: string, args: unknown): string {
  const parsed = parsedArguments(args);
  let text: string;
  try {
    text = typeof parsed === "string" ? `raw:${parsed}` : canonicalJson(parsed ?? {});
  } catch {
    text = `raw:${String(parsed)}`;
  }
  // JSON of the pair: unambiguous whatever the tool name holds, never `__proto__`, and free of raw
  // NUL bytes and lone surrogates, so a state that carries keys can be stored in PostgreSQL's jsonb.
  return JSON.stringify([tool, text]);
}
