/** Polls `probe` every `everyMs` until it finds something, failing after `timeoutMs` with what was awaited. */
export const waitFor = async <T>(what: string, probe: () => Promise<T | undefined>, timeoutMs: number, everyMs = 500): Promise<T> => {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const found = await probe()
    if (found !== undefined) return found
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await new Promise((r) => setTimeout(r, everyMs))
  }
}
