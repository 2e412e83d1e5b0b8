// Walking a thrown value and what it wraps, bounded, reading properties that may throw.

/** Reads one property, or `undefined` when `value` is no object or the getter throws. @internal */
export function read(value: unknown, key: string): unknown {
  if (typeof value !== "object" || value === null) return undefined;
  try {
    return (value as Record<string, unknown>)[key];
  } catch {
    return undefined;
  }
}

/** Values an error chain holds at most. */
const MAX_LINKS = 16;

/**
 * An error and what it wraps, itself first, breadth first: `cause`, an `AggregateError`'s `errors`
 * (Node's "happy eyeballs" connect), Stripe's `detail` and gaxios's `error`. Bounded (16 values, no
 * value twice), so a cycle or a huge aggregate costs nothing. @internal
 */
export function errorChain(error: unknown): unknown[] {
  const chain: unknown[] = [];
  const queue: unknown[] = [error];
  while (queue.length > 0 && chain.length < MAX_LINKS) {
    const current = queue.shift();
    if (current === undefined || current === null || chain.includes(current)) continue;
    chain.push(current);
    if (typeof current !== "object") continue;
    for (const key of ["cause", "detail", "error"]) {
      const next = read(current, key);
      if (typeof next === "object" && next !== null) queue.push(next);
    }
    const errors = read(current, "errors");
    if (Array.isArray(errors)) for (const inner of errors.slice(0, MAX_LINKS)) queue.push(inner);
  }
  return chain;
}
