// The simulator's notion of "now": write timestamps and the HTTP Date header both come from it,
// so tests can pin time (and cross seconds or DST changes) without sleeping.

export interface SimClock {
  /** Epoch milliseconds. */
  now(): number
}

export const realClock = (): SimClock => ({ now: () => Date.now() })

export const manualClock = (startMs: number): SimClock & { set(ms: number): void; advance(ms: number): void } => {
  let current = startMs
  return {
    now: () => current,
    set: (ms) => {
      current = ms
    },
    advance: (ms) => {
      current += ms
    },
  }
}
