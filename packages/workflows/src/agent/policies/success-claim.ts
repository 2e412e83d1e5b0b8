/**
 * Decides whether a final answer claims success. Return `true` for a claim; the guardrail rejects
 * a claim while a failure is blocking.
 *
 * @example
 * ```ts
 * const strict: SuccessClaimDetector = (text) => /\b(done|finished|synced)\b/i.test(text) || claimsSuccess(text);
 * ```
 */
export type SuccessClaimDetector = (text: string) => boolean;

const CLAIM = /\b(?:complete|completed|success|successful|successfully|all\s+done)\b/gi;
// A claim word right after a negation or qualifier ("not complete", "wasn't fully successful",
// "partially completed") states a failure instead of hiding one.
const QUALIFIED =
  /\b(?:not|never|no|nor|without|partially|partly|isn't|wasn't|aren't|weren't|hasn't|haven't|hadn't|didn't|couldn't|can't|cannot|won't)\s+(?:[a-z]+\s+)?$/i;

/**
 * The default success-claim detector: the whole words complete, completed, success, successful,
 * successfully and the phrase "all done", case-insensitive, unless a negation or qualifier stands
 * just before the word ("not complete", "was not fully successful", "partially completed").
 *
 * @example
 * ```ts
 * claimsSuccess("Sync complete.");                          // true
 * claimsSuccess("The sync is not complete: 3 writes failed."); // false
 * claimsSuccess("Incomplete: 3 writes failed.");             // false (whole words only)
 * ```
 */
export function claimsSuccess(text: string): boolean {
  const normalized = text.replace(/[\u2018\u2019]/g, "'");
  for (const match of normalized.matchAll(CLAIM)) {
    const before = normalized.slice(Math.max(0, match.index - 40), match.index);
    if (!QUALIFIED.test(before)) return true;
  }
  return false;
}
