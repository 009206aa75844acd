// /shipping/zones, their locations (read) and their method instances (seed part 2 §4.10-4.11; update and delete
// of methods as WooCommerce has them). Zone 0 lists first and refuses edits; deletes need force=true.
import { json } from "../../http/reply.ts"
import type { Router } from "../../http/router.ts"
import type { Handler } from "../app.ts"
import { type Body, bool, int, object, str } from "../rest/body-fields.ts"
import { trashNotSupported } from "../rest/errors.ts"
import { type Json, type RenderContext, links } from "../rest/render.ts"
import { REST_OF_WORLD, type MethodInput, type ZoneMethodRecord, type ZoneRecord, methodDef } from "./zone-store.ts"

const zoneJson = (z: ZoneRecord, r: RenderContext): Json => ({
  id: z.id,
  name: z.name,
  order: z.order,
  _links: links(r, { self: `/shipping/zones/${z.id}`, collection: "/shipping/zones", describedby: `/shipping/zones/${z.id}/locations` }),
})

const methodJson = (m: ZoneMethodRecord, r: RenderContext): Json => {
  const def = methodDef(m)
  return {
    id: m.instanceId,
    instance_id: m.instanceId,
    title: m.settings["title"] ?? def.title,
    order: m.order,
    enabled: m.enabled,
    method_id: m.methodId,
    method_title: def.title,
    method_description: def.description,
    settings: Object.fromEntries(
      def.settings.map((s) => [
        s.id,
        { id: s.id, label: s.label, description: s.description, type: s.type, value: m.settings[s.id] ?? s.default, default: s.default, tip: s.tip, placeholder: s.placeholder, ...(s.options === undefined ? {} : { options: s.options }) },
      ]),
    ),
    _links: links(r, { self: `/shipping/zones/${m.zoneId}/methods/${m.instanceId}`, collection: `/shipping/zones/${m.zoneId}/methods`, describes: `/shipping/zones/${m.zoneId}` }),
  }
}

const methodInput = (b: Body): MethodInput => ({ order: int(b, "order"), enabled: bool(b, "enabled"), settings: object(b, "settings") })

const forceOrRefuse = (ctx: Parameters<Handler>[0], plural: string): void => {
  const p = ctx.args()
  const force = p.bool("force", false)
  p.check()
  if (!force) throw trashNotSupported(plural)
}

export const registerShippingZones = (router: Router<Handler>): void => {
  const updateZone: Handler = (ctx, { id }) => json(200, zoneJson(ctx.state.zones.updateZone(ctx.state.zones.editable(Number(id)), { name: str(ctx.body, "name"), order: int(ctx.body, "order") }), ctx.render(2)))
  const updateMethod: Handler = (ctx, { zone_id, id }) => json(200, methodJson(ctx.state.zones.updateMethod(ctx.state.zones.method(Number(zone_id), Number(id)), methodInput(ctx.body)), ctx.render(2)))
  router
    .add("GET", "/shipping/zones", (ctx) => {
      const r = ctx.render(2)
      const all = [...ctx.state.zones.zones.values()].filter((z) => z.id !== REST_OF_WORLD).sort((a, b) => a.order - b.order || a.id - b.id)
      return json(200, [ctx.state.zones.zone(REST_OF_WORLD), ...all].map((z) => zoneJson(z, r)))
    })
    .add("POST", "/shipping/zones", (ctx) => {
      const z = ctx.state.zones.addZone({ name: str(ctx.body, "name"), order: int(ctx.body, "order") })
      return json(201, zoneJson(z, ctx.render(2)), { Location: `${ctx.apiUrl}/shipping/zones/${z.id}` })
    })
    .add("GET", "/shipping/zones/:id", (ctx, { id }) => json(200, zoneJson(ctx.state.zones.zone(Number(id)), ctx.render(2))))
    .add("PUT", "/shipping/zones/:id", updateZone)
    .add("PATCH", "/shipping/zones/:id", updateZone)
    .add("POST", "/shipping/zones/:id", updateZone)
    .add("DELETE", "/shipping/zones/:id", (ctx, { id }) => {
      const zone = ctx.state.zones.editable(Number(id))
      forceOrRefuse(ctx, "Shipping zones")
      const body = zoneJson(zone, ctx.render(2))
      ctx.state.zones.deleteZone(zone)
      return json(200, body)
    })
    .add("GET", "/shipping/zones/:id/locations", (ctx, { id }) => {
      const r = ctx.render(2)
      return json(
        200,
        ctx.state.zones
          .zone(Number(id))
          .locations.map((l) => ({ code: l.code, type: l.type, _links: links(r, { collection: `/shipping/zones/${id}/locations`, describes: `/shipping/zones/${id}` }) })),
      )
    })
    .add("GET", "/shipping/zones/:zone_id/methods", (ctx, { zone_id }) => {
      const r = ctx.render(2)
      ctx.state.zones.zone(Number(zone_id))
      return json(200, ctx.state.zones.methodsOf(Number(zone_id)).map((m) => methodJson(m, r)))
    })
    .add("POST", "/shipping/zones/:zone_id/methods", (ctx, { zone_id }) => {
      const m = ctx.state.zones.addMethod(Number(zone_id), str(ctx.body, "method_id"), methodInput(ctx.body))
      return json(201, methodJson(m, ctx.render(2)), { Location: `${ctx.apiUrl}/shipping/zones/${zone_id}/methods/${m.instanceId}` })
    })
    .add("GET", "/shipping/zones/:zone_id/methods/:id", (ctx, { zone_id, id }) => json(200, methodJson(ctx.state.zones.method(Number(zone_id), Number(id)), ctx.render(2))))
    .add("PUT", "/shipping/zones/:zone_id/methods/:id", updateMethod)
    .add("PATCH", "/shipping/zones/:zone_id/methods/:id", updateMethod)
    .add("POST", "/shipping/zones/:zone_id/methods/:id", updateMethod)
    .add("DELETE", "/shipping/zones/:zone_id/methods/:id", (ctx, { zone_id, id }) => {
      const m = ctx.state.zones.method(Number(zone_id), Number(id))
      forceOrRefuse(ctx, "Shipping methods")
      ctx.state.zones.methods.delete(m.instanceId)
      return json(200, methodJson(m, ctx.render(2)))
    })
}
