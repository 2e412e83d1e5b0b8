/** A step into a value: an object key or a list index. */
type Step = string | number;

/**
 * Parses a JSON path as the model writes it: `$`, `$.rows`, `rows[3].name`, `rows.3`,
 * `$["odd key"]`, or a JSON Pointer (`/rows/3`). `undefined` for a path it cannot read.
 * @internal
 */
export function parsePath(path: string): Step[] | undefined {
  const text = path.trim();
  if (text === "" || text === "$") return [];
  if (text.startsWith("/"))
    return text
      .slice(1)
      .split("/")
      .map((part) => part.replaceAll("~1", "/").replaceAll("~0", "~"))
      .map((part) => (/^(0|[1-9]\d*)$/.test(part) ? Number(part) : part));
  const steps: Step[] = [];
  let i = text.startsWith("$") ? 1 : 0;
  let first = true;
  while (i < text.length) {
    const c = text[i]!;
    if (c === "[") {
      const close = text.indexOf("]", i);
      if (close === -1) return undefined;
      const inner = text.slice(i + 1, close).trim();
      if (/^\d+$/.test(inner)) steps.push(Number(inner));
      else if (/^(".*"|'.*')$/.test(inner)) steps.push(inner.slice(1, -1));
      else return undefined;
      i = close + 1;
    } else {
      if (c === ".") i++;
      else if (!first) return undefined;
      let end = i;
      while (end < text.length && text[end] !== "." && text[end] !== "[") end++;
      const name = text.slice(i, end);
      if (name === "") return undefined;
      steps.push(/^(0|[1-9]\d*)$/.test(name) ? Number(name) : name);
      i = end;
    }
    first = false;
  }
  return steps;
}

/** What a path found: the value, or the step that found nothing and what was there to choose. */
export type PathResult =
  | { readonly found: true; readonly value: unknown }
  | { readonly found: false; readonly at: string; readonly choices: string };

/**
 * Follows `steps` into `value` (own members only: a path never reaches a prototype).
 * @internal
 */
export function followPath(value: unknown, steps: readonly Step[]): PathResult {
  let current = value;
  let at = "$";
  for (const step of steps) {
    if (Array.isArray(current)) {
      const index = typeof step === "number" ? step : Number.NaN;
      if (!Number.isInteger(index) || index < 0 || index >= current.length)
        return { found: false, at: `${at}[${String(step)}]`, choices: `indexes 0 to ${current.length - 1}` };
      current = current[index];
      at = `${at}[${index}]`;
    } else if (typeof current === "object" && current !== null) {
      const key = String(step);
      if (!Object.hasOwn(current, key)) {
        const keys = Object.keys(current);
        const listed = keys.slice(0, 20).join(", ") + (keys.length > 20 ? ", ..." : "");
        return { found: false, at: `${at}.${key}`, choices: `members ${listed || "(none)"}` };
      }
      current = (current as Record<string, unknown>)[key];
      at = `${at}.${key}`;
    } else {
      return { found: false, at: `${at}.${String(step)}`, choices: "nothing: the value there is not a list or object" };
    }
  }
  return { found: true, value: current };
}
