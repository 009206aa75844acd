import * as NodeHttpClient from "@effect/platform-node/NodeHttpClient"
import { Layer } from "effect"
import type { MarketingSettings, StoreSettings } from "../config/settings.js"
import { MarketingLive } from "../marketing-client/client.js"
import { StoreClientLive } from "../store-client/client.js"
import { ProgressLive } from "./progress.js"

/** A store's client over undici. */
export const storeClientLayer = (settings: StoreSettings) => StoreClientLive(settings).pipe(Layer.provide(NodeHttpClient.layerUndici))

/** The marketing client over undici. */
export const marketingLayer = (settings: MarketingSettings) => MarketingLive(settings).pipe(Layer.provide(NodeHttpClient.layerUndici))

/** What a sync needs besides the warehouse (provided once per job): the store client, progress display. */
export const syncLayer = (settings: StoreSettings) => Layer.mergeAll(storeClientLayer(settings), ProgressLive())
