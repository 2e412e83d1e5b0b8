/**
 * JSON with object keys sorted at every level, so equal values give equal text. Used to compare
 * tool arguments ("the same call") and to sign checkpoints.
 * @internal
 */
export function canonicalJson(value: unknown): string {
  const text = JSON.stringify(value, (_key, v: unknown) => {
    if (v === null || typeof v !== "object" || Array.isArray(v)) return v;
    const source = v as Record<string, unknown>;
    const sorted: Record<string, unknown> = {};
    for (const key of Object.keys(source).sort()) sorted[key] = source[key];
    return sorted;
  });
  return text ?? "null";
}

/** Arguments as an object when the model sent parseable JSON text; otherwise as given. @internal */
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
 * @internal
 */
export function callKey(tool: string, args: unknown): string {
  const parsed = parsedArguments(args);
  let text: string;
  try {
    text = typeof parsed === "string" ? `raw:${parsed}` : canonicalJson(parsed ?? {});
  } catch {
    text = `raw:${String(parsed)}`;
  }
  return `${tool}\u0000${text}`;
}
