// /settings (seed part 2 §4.9): the groups (WooCommerce lists them at /settings), a group's options, one option,
// its update and the batch update of a group. Only `value` is writable; everything else is read-only.
import { json } from "../../http/reply.ts"
import type { Router } from "../../http/router.ts"
import type { Handler } from "../app.ts"
import { batchHandler } from "../rest/batch.ts"
import { missing, str } from "../rest/body-fields.ts"
import { type Json, type RenderContext, links } from "../rest/render.ts"
import { SETTING_GROUPS, type SettingDef } from "./settings-catalog.ts"
import type { StoreState } from "../state.ts"

const optionJson = (s: StoreState, groupId: string, def: SettingDef, r: RenderContext): Json => ({
  id: def.id,
  label: def.label,
  description: def.description,
  type: def.type,
  default: def.default,
  ...(def.options === undefined ? {} : { options: def.options }),
  ...(def.tip === undefined ? {} : { tip: def.tip }),
  ...(def.placeholder === undefined ? {} : { placeholder: def.placeholder }),
  value: s.settings.value(def.id),
  group_id: groupId,
  _links: links(r, { self: `/settings/${groupId}/${def.id}`, collection: `/settings/${groupId}` }),
})

export const registerSettings = (router: Router<Handler>): void => {
  const update: Handler = (ctx, { group, id }) => {
    if (!("value" in ctx.body)) throw missing("value")
    return json(200, optionJson(ctx.state, group!, ctx.state.settings.set(group!, id!, ctx.body["value"]), ctx.render(2)))
  }
  router
    .add("GET", "/settings", (ctx) => {
      const r = ctx.render(2)
      return json(
        200,
        SETTING_GROUPS.map((g) => ({ id: g.id, label: g.label, description: g.description, parent_id: "", sub_groups: [], _links: links(r, { options: `/settings/${g.id}` }) })),
      )
    })
    .add("GET", "/settings/{group}", (ctx, { group }) => {
      const r = ctx.render(2)
      return json(200, ctx.state.settings.group(group!).settings.map((def) => optionJson(ctx.state, group!, def, r)))
    })
    .add("POST", "/settings/{group}/batch", (ctx, params) => {
      ctx.state.settings.group(params["group"]!)
      return batchHandler({
        update: (c, b) => {
          const id = str(b, "id") ?? ""
          if (!("value" in b)) throw missing("value")
          return optionJson(c.state, params["group"]!, c.state.settings.set(params["group"]!, id, b["value"]), c.render(2))
        },
      })(ctx, params)
    })
    .add("GET", "/settings/{group}/{id}", (ctx, { group, id }) => json(200, optionJson(ctx.state, group!, ctx.state.settings.def(group!, id!), ctx.render(2))))
    .add("PUT", "/settings/{group}/{id}", update)
    .add("PATCH", "/settings/{group}/{id}", update)
    .add("POST", "/settings/{group}/{id}", update)
}
