/**
 * mulberry32: a tiny seeded PRNG returning numbers in [0, 1). The audit draws every fault from it,
 * so one seed gives the same 500 fault plans in every mode and on every machine.
 *
 * @example
 * ```ts
 * const random = mulberry32(2024);
 * random(); // always the same first number for seed 2024
 * ```
 */
export function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A uniform pick from `items` with `random`. */
export function pick<T>(random: () => number, items: readonly T[]): T {
  return items[Math.floor(random() * items.length)]!;
}
