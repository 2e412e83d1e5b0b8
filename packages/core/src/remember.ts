/** How many strings a memo holds before it is emptied. */
const REMEMBERED = 256;

/**
 * Adds `value` to a bounded memo of strings (texts found clean, names found safe), emptying the memo
 * first when it is full, so a stream of distinct values costs no more memory than a few kilobytes.
 * @internal
 *
 * @example
 * ```ts
 * const safeNames = new Set<string>();
 * remember(safeNames, "TypeError");
 * ```
 */
export function remember(memo: Set<string>, value: string): void {
  if (memo.size >= REMEMBERED) memo.clear();
  memo.add(value);
}
