import { Clock, Context, Effect, Layer, Ref } from "effect"

/** What the routes and the background tasks of one `serve` process share. */
export class ServeState extends Context.Tag("shopsync/ServeState")<ServeState, {
  readonly storeId: string
  /** SHOPSYNC_SYNC_EVERY in milliseconds. */
  readonly syncEveryMs: number
  /** False once SIGTERM arrived: new deliveries get 503 (the store sends them again later). */
  readonly accepting: Ref.Ref<boolean>
  /** Epoch ms when the last scheduled sync finished (the process start until the first one has). */
  readonly lastSyncAt: Ref.Ref<number>
  /** Whether the inbox worker runs (false before it starts and while it waits to start again after dying). */
  readonly inboxWorkerUp: Ref.Ref<boolean>
}>() {}

export const ServeStateLive = (storeId: string, syncEveryMs: number) =>
  Layer.effect(ServeState, Effect.gen(function*() {
    return ServeState.of({ storeId, syncEveryMs, accepting: yield* Ref.make(true), lastSyncAt: yield* Ref.make(yield* Clock.currentTimeMillis), inboxWorkerUp: yield* Ref.make(false) })
  }))
