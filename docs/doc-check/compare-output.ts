// What a ```ts run block printed, compared with the ```text output block its page shows after it.

/** The wildcard a line of a ```text output block may use for a variable part (a latency, an id, a path). */
export const WILDCARD = "…";

const lines = (text: string): string[] => {
  const out = text
    .replace(/\r\n/g, "\n")
    .split("\n")
    .map((line) => line.trimEnd());
  while (out.length > 0 && out.at(-1) === "") out.pop();
  return out;
};

const escapeRegExp = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/** Whether one printed line matches one expected line, where each `…` stands for any text (or none). */
export function lineMatches(expected: string, printed: string): boolean {
  if (!expected.includes(WILDCARD)) return expected === printed;
  return new RegExp(`^${expected.split(WILDCARD).map(escapeRegExp).join(".*")}$`, "s").test(printed);
}

/**
 * Why `printed` is not what the page says (`expected`, the body of its ```text output block), or
 * undefined when it is. Lines are compared one by one, trailing spaces and trailing blank lines aside;
 * a line may use `…` for a variable part. The message names the first line that differs and shows
 * both outputs, so the fix (the page or the program) is plain.
 *
 * @example
 * outputMismatch("completed 3", "completed 0");
 * // 'line 1: the page says "completed 3", the program printed "completed 0"\n...'
 */
export function outputMismatch(expected: string, printed: string): string | undefined {
  const want = lines(expected);
  const got = lines(printed);
  const length = Math.max(want.length, got.length);
  for (let i = 0; i < length; i++) {
    const w = want[i];
    const g = got[i];
    if (w !== undefined && g !== undefined && lineMatches(w, g)) continue;
    const said = w === undefined ? "nothing more" : JSON.stringify(w);
    const did = g === undefined ? "nothing more" : JSON.stringify(g);
    return [
      `line ${i + 1}: the page says ${said}, the program printed ${did}`,
      "the page's output block:",
      ...want.map((l) => `  | ${l}`),
      "what the program printed:",
      ...got.map((l) => `  | ${l}`),
    ].join("\n");
  }
  return undefined;
}
