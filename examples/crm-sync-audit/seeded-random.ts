import { seededRandom } from "@needlework/workflows/testing";

/**
 * The audit's seeded random source: needlework's own `seededRandom` (mulberry32), so one seed gives
 * the same fault plans in every mode and on every machine.
 *
 * @example
 * ```ts
 * const random = mulberry32(2024);
 * random(); // always the same first number for seed 2024
 * ```
 */
export const mulberry32: (seed: number) => () => number = seededRandom;

/** A uniform pick from `items` with `random`. */
export function pick<T>(random: () => number, items: readonly T[]): T {
  return items[Math.floor(random() * items.length)]!;
}
