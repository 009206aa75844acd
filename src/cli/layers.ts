import * as NodeHttpClient from "@effect/platform-node/NodeHttpClient"
import { Layer } from "effect"
import type { StoreSettings } from "../config/settings.js"
import { StoreClientLive } from "../store-client/client.js"
import { ProgressLive } from "./progress.js"

/** What a sync needs besides the warehouse (provided once per command): the store client over undici, progress display. */
export const syncLayer = (settings: StoreSettings) =>
  Layer.mergeAll(StoreClientLive(settings).pipe(Layer.provide(NodeHttpClient.layerUndici)), ProgressLive(settings.perPage))
