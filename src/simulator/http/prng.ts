// Seeded PRNG (mulberry32): simulators must answer the same way for the same seed, run after run.

export interface Rng {
  /** Uniform in [0, 1). */
  next(): number
  /** Integer in [min, max] (both inclusive). */
  int(min: number, max: number): number
  chance(probability: number): boolean
  pick<T>(items: ReadonlyArray<T>): T
  /** Index drawn with the given relative weights. */
  weighted(weights: ReadonlyArray<number>): number
}

export const mulberry32 = (seed: number): (() => number) => {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

export const createRng = (seed: number): Rng => {
  const next = mulberry32(seed)
  const int = (min: number, max: number) => min + Math.floor(next() * (max - min + 1))
  return {
    next,
    int,
    chance: (p) => next() < p,
    pick: (items) => items[Math.floor(next() * items.length)]!,
    weighted: (weights) => {
      let total = 0
      for (const w of weights) total += w
      let r = next() * total
      for (let i = 0; i < weights.length; i++) {
        r -= weights[i]!
        if (r < 0) return i
      }
      return weights.length - 1
    },
  }
}

/** A stable 32-bit hash of integers, for values derived from an id without storing them. */
export const hashInts = (...values: number[]): number => {
  let h = 0x811c9dc5
  for (const v of values) {
    h = Math.imul(h ^ (v | 0), 0x01000193)
    h = Math.imul(h ^ Math.floor(v / 4294967296), 0x01000193)
  }
  h ^= h >>> 15
  h = Math.imul(h, 0x2c1b3c6d)
  h ^= h >>> 12
  return h >>> 0
}
