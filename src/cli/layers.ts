import { NodeHttpClient } from "@effect/platform-node"
import { Layer } from "effect"
import type { StoreSettings } from "../config/settings.js"
import { StoreClientLive } from "../store/client.js"
import { DatabaseLive } from "../warehouse/database.js"
import { ProgressLive } from "./progress.js"

/** Everything a sync needs: the store client over undici, the warehouse, progress display. */
export const syncLayer = (settings: StoreSettings) =>
  Layer.mergeAll(
    StoreClientLive(settings).pipe(Layer.provide(NodeHttpClient.layerUndici)),
    DatabaseLive,
    ProgressLive(settings.perPage)
  )
