// /system_status/tools (seed part 2 §4.12): WooCommerce's maintenance tools. A PUT runs the tool only with
// confirm=true and answers the tool with success and message; confirm itself is write-only. Most tools only
// report; delete_taxes really deletes every tax rate and delete_orphaned_variations the variations without parent.
import { json } from "../../http/reply.ts"
import type { Router } from "../../http/router.ts"
import type { Handler } from "../app.ts"
import { wcError } from "../rest/errors.ts"
import { type Json, type RenderContext, links } from "../rest/render.ts"
import type { StoreState } from "../state.ts"

interface Tool {
  id: string
  name: string
  action: string
  description: string
  run: (s: StoreState) => string
}

const tool = (id: string, name: string, action: string, description: string, run: (s: StoreState) => string): Tool => ({ id, name, action, description, run })

const TOOLS: ReadonlyArray<Tool> = [
  tool("clear_transients", "WooCommerce transients", "Clear transients", "This tool will clear the product/shop transients cache.", () => "Product transients cleared"),
  tool("clear_expired_transients", "Expired transients", "Clear transients", "This tool will clear ALL expired transients from WordPress.", () => "0 transients rows cleared"),
  tool("delete_orphaned_variations", "Orphaned variations", "Delete orphaned variations", "This tool will delete all variations which have no parent.", (s) => {
    let n = 0
    for (const v of [...s.variationById.values()]) if (!s.productById.has(v.parentId)) n += Number(s.variationById.delete(v.id))
    return `${n} orphaned variations deleted`
  }),
  tool("clear_expired_download_permissions", "Used-up download permissions", "Clean up download permissions", "This tool will delete expired download permissions and permissions with 0 remaining downloads.", () => "0 permissions deleted"),
  tool("regenerate_product_lookup_tables", "Product lookup tables", "Regenerate", "This tool will regenerate product lookup table data. This process may take a while.", () => "Lookup tables are regenerating"),
  tool("repair_coupons_lookup_table", "Coupons lookup table", "Regenerate", "This tool will regenerate the coupons lookup table data.", () => "Coupons lookup table regenerated"),
  tool("recount_terms", "Term counts", "Recount terms", "This tool will recount product terms - useful when changing your settings in a way which hides products from the catalog.", () => "Terms successfully recounted"),
  tool("reset_roles", "Capabilities", "Reset capabilities", "This tool will reset the admin, customer and shop_manager roles to default. Use this if your users cannot access all of the WooCommerce admin pages.", () => "Roles successfully reset"),
  tool("clear_sessions", "Clear customer sessions", "Clear", "This tool will delete all customer session data from the database, including current carts and saved carts in the database.", () => "Deleted all active sessions, and 0 saved carts."),
  tool("clear_template_cache", "Clear template cache", "Clear", "This tool will empty the template cache.", () => "Template cache cleared."),
  tool("clear_system_status_theme_info_cache", "Clear system status theme info cache", "Clear", "This tool will empty the system status theme info cache.", () => "System status theme info cache cleared."),
  tool("install_pages", "Create default WooCommerce pages", "Create pages", "This tool will install all the missing WooCommerce pages. Pages already defined and set up won't be replaced.", () => "All missing WooCommerce pages successfully installed"),
  tool("delete_taxes", "Delete WooCommerce tax rates", "Delete tax rates", "This option will delete ALL of your tax rates, use with caution. This action cannot be reversed.", (s) => {
    s.taxes.rates.clear()
    return "Tax rates successfully deleted"
  }),
  tool("regenerate_thumbnails", "Regenerate shop thumbnails", "Regenerate", "This will regenerate all shop thumbnails to match your theme and/or image settings.", () => "Thumbnail regeneration has been scheduled to run in the background."),
  tool("db_update_routine", "Update database", "Update database", "This tool will update your WooCommerce database to the latest version. Please ensure you make sufficient backups before proceeding.", () => "Database upgrade routine has been scheduled to run in the background."),
  tool("recreate_order_address_fts_index", "Re-create Order Address FTS index", "Recreate index", "This tool will recreate the full text search index for order addresses.", () => "Order address full text search index recreated."),
  tool("verify_db_tables", "Verify base database tables", "Verify database", "Verify if all base database tables are present.", () => "Database verified successfully."),
]

const toolJson = (t: Tool, r: RenderContext, result?: { success: boolean; message: string }): Json => ({
  id: t.id,
  name: t.name,
  action: t.action,
  description: t.description,
  ...result,
  _links: links(r, { item: `/system_status/tools/${t.id}` }),
})

const findTool = (id: string): Tool => {
  const t = TOOLS.find((x) => x.id === id)
  if (t === undefined) throw wcError(404, "woocommerce_rest_system_status_tool_invalid_id", "Invalid tool ID.")
  return t
}

export const registerSystemTools = (router: Router<Handler>): void => {
  const run: Handler = (ctx, { id }) => {
    const t = findTool(id!)
    const p = ctx.args()
    const confirm = p.bool("confirm", false)
    p.check()
    const result = confirm ? { success: true, message: t.run(ctx.state) } : { success: false, message: "Tool not run: send confirm=true to run it." }
    return json(200, toolJson(t, ctx.render(2), result))
  }
  router
    .add("GET", "/system_status/tools", (ctx) => {
      const r = ctx.render(2)
      return json(200, TOOLS.map((t) => toolJson(t, r)))
    })
    .add("GET", "/system_status/tools/{id}", (ctx, { id }) => json(200, toolJson(findTool(id!), ctx.render(2))))
    .add("PUT", "/system_status/tools/{id}", run)
    .add("PATCH", "/system_status/tools/{id}", run)
    .add("POST", "/system_status/tools/{id}", run)
}
