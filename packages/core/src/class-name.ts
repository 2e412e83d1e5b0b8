import { remember } from "./remember.js";

/**
 * Whether `name` may be shown as an exception's type: it reads like a class name (an identifier of
 * at most 64 characters with a lower-case letter, as `TypeError` or `OrderNotFound`) and not like
 * a credential (`AKIAIOSFODNN7EXAMPLE`, `ghp_…`, `sk_live_…`, long digit runs, mixed random text).
 * A thrown value chooses its own `name`, so it is as untrusted as its message.
 *
 * @example
 * ```ts
 * isSafeClassName("HttpError");            // true
 * isSafeClassName("AKIAIOSFODNN7EXAMPLE"); // false
 * ```
 */
export function isSafeClassName(name: unknown): name is string {
  if (typeof name !== "string") return false;
  if (safeNames.has(name)) return true;
  if (!readsAsClassName(name)) return false;
  remember(safeNames, name);
  return true;
}

/** Names found safe: every failing call checks its error's type, and the types repeat. */
const safeNames = new Set<string>();

function readsAsClassName(name: string): boolean {
  if (!/^[A-Za-z$][A-Za-z0-9$]{0,63}$/.test(name)) return false;
  if (!/[a-z]/.test(name)) return false;
  if (/^(AKIA|ASIA|AIza|ghp|gho|ghs|ghu|ghr|glpat|xox[abprs]|sk|pk|rk)[A-Z0-9_-]/.test(name)) return false;
  // Class names have few digits and change case at word starts; random tokens change case often.
  const digits = name.replace(/[^0-9]/g, "").length;
  const upperRuns = name.match(/[A-Z]/g)?.length ?? 0;
  return digits <= 3 && upperRuns <= Math.max(4, name.length / 3);
}
