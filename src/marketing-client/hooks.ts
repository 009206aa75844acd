import { Effect } from "effect"
import { MarketingClient, retryWhole } from "./client.js"
import { MarketingSetupInvalid } from "./errors.js"
import type { Hook } from "./schemas.js"

export interface EnsureHookResult {
  readonly action: "created" | "repaired" | "unchanged"
  readonly hook: Hook
  /** Other webhooks with the same URL, deleted so exactly one remains. */
  readonly removedDuplicates: ReadonlyArray<number>
}

const sameSet = (a: ReadonlyArray<string>, b: ReadonlyArray<string>) =>
  a.length === b.length && [...a].sort().every((x, i) => x === [...b].sort()[i])

const withUrl = (hooks: ReadonlyArray<Hook>, url: string) => hooks.filter((h) => h.webhookUrl === url)

/**
 * Makes sure exactly one published webhook with this URL fires on exactly these triggers: creates it
 * (POST /hooks/new), repairs it (PATCH), or leaves it alone. Repeating it changes nothing; a lost answer
 * is handled by looking again before acting again.
 */
export const ensureHook = (input: { readonly url: string; readonly triggers: ReadonlyArray<string>; readonly name?: string }) =>
  Effect.gen(function*() {
    const client = yield* MarketingClient
    const known = new Set(yield* client.triggers)
    const unknown = input.triggers.filter((t) => !known.has(t))
    if (input.triggers.length === 0 || unknown.length > 0) {
      return yield* new MarketingSetupInvalid({
        detail: `${input.triggers.length === 0 ? "no trigger given" : `unknown trigger(s) ${unknown.join(", ")}`}; ` +
          `the service offers: ${[...known].join(", ")}`
      })
    }
    const triggers = [...new Set(input.triggers)]
    return yield* retryWhole(client.policy, `webhook ${input.url}`, Effect.gen(function*() {
      const [first, ...duplicates] = withUrl(yield* client.listHooks, input.url)
      for (const d of duplicates) yield* client.deleteHook(d.id)
      const removedDuplicates = duplicates.map((d) => d.id)
      if (!first) {
        const hook = yield* client.createHook({ name: input.name ?? `shopsync ${input.url}`, webhookUrl: input.url, triggers, isPublished: true })
        return { action: "created", hook, removedDuplicates } satisfies EnsureHookResult
      }
      if (first.isPublished && sameSet(first.triggers, triggers)) return { action: "unchanged", hook: first, removedDuplicates } satisfies EnsureHookResult
      const hook = yield* client.patchHook(first.id, { triggers, isPublished: true })
      return { action: "repaired", hook, removedDuplicates } satisfies EnsureHookResult
    }))
  })

/** Deletes every webhook with this URL; returns their ids. */
export const removeHooks = (url: string) =>
  Effect.gen(function*() {
    const client = yield* MarketingClient
    return yield* retryWhole(client.policy, `webhook ${url}`, Effect.gen(function*() {
      const found = withUrl(yield* client.listHooks, url)
      for (const h of found) yield* client.deleteHook(h.id)
      return found.map((h) => h.id)
    }))
  })
