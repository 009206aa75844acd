// WordPress-style action hooks fired by the store's writes (the names WooCommerce uses), so that webhooks can bind
// topics to them exactly as WooCommerce does: a topic is a set of hooks, and `action.<hook>` is one hook.

/** The kind of record a hook's argument names, for the hooks WordPress fires for every post type (wp_trash_post). */
export type HookResource = "order" | "product" | "customer" | "coupon"

export interface HookEvent {
  hook: string
  /** The hook's first argument (an id for every hook the simulator fires itself). */
  arg: unknown
  resource?: HookResource
}

export type HookListener = (event: HookEvent) => void

export class HookBus {
  private readonly listeners = new Set<HookListener>()

  on(listener: HookListener): () => void {
    this.listeners.add(listener)
    return () => this.listeners.delete(listener)
  }

  /** `do_action(hook, arg)`; tests may fire custom hooks too. */
  emit(hook: string, arg: unknown, resource?: HookResource): void {
    const event: HookEvent = resource === undefined ? { hook, arg } : { hook, arg, resource }
    for (const listener of this.listeners) listener(event)
  }
}
