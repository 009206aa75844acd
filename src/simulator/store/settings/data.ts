// /data (seed part 2 §4.5): reference data — continents with their countries (and the locale details of those
// WooCommerce describes), countries with states, currencies, and the shop's current currency (its setting).
import { json } from "../../http/reply.ts"
import type { Router } from "../../http/router.ts"
import type { Handler } from "../app.ts"
import { wcError } from "../rest/errors.ts"
import { CONTINENTS, COUNTRY_NAMES, CURRENCY_CODES, LOCALES, STATES, currencyName, currencySymbol } from "./geo.ts"
import { type Json, type RenderContext, links } from "../rest/render.ts"

const states = (code: string) => (STATES[code] ?? []).map((st) => ({ code: st.code, name: st.name }))

/** A country inside a continent: with its locale details when it has some, fields in alphabetical order. */
const countryInContinent = (code: string): Json => {
  const fields: Json = { code, name: COUNTRY_NAMES[code] ?? code, states: states(code), ...LOCALES[code] }
  return Object.fromEntries(Object.entries(fields).sort(([a], [b]) => a.localeCompare(b)))
}

const continentJson = (c: (typeof CONTINENTS)[number], r: RenderContext): Json => ({
  code: c.code,
  name: c.name,
  countries: [...c.countries].sort((a, b) => (COUNTRY_NAMES[a] ?? a).localeCompare(COUNTRY_NAMES[b] ?? b)).map(countryInContinent),
  _links: links(r, { self: `/data/continents/${c.code.toLowerCase()}`, collection: "/data/continents" }),
})

const countryJson = (code: string, r: RenderContext): Json => ({
  code,
  name: COUNTRY_NAMES[code] ?? code,
  states: states(code),
  _links: links(r, { self: `/data/countries/${code.toLowerCase()}`, collection: "/data/countries" }),
})

const currencyJson = (code: string, r: RenderContext, self = code.toLowerCase()): Json => ({
  code,
  name: currencyName(code),
  symbol: currencySymbol(code),
  _links: links(r, { self: `/data/currencies/${self}`, collection: "/data/currencies" }),
})

const notFound = (what: string) => wcError(404, `woocommerce_rest_data_invalid_${what}`, "There are no locations matching these parameters.")

export const registerData = (router: Router<Handler>): void => {
  router
    .add("GET", "/data", (ctx) => {
      const r = ctx.render(2)
      return json(200, [
        { slug: "continents", description: "List of supported continents, countries, and states.", _links: links(r, { self: "/data/continents", collection: "/data" }) },
        { slug: "countries", description: "List of supported states in a given country.", _links: links(r, { self: "/data/countries", collection: "/data" }) },
        { slug: "currencies", description: "List of supported currencies.", _links: links(r, { self: "/data/currencies", collection: "/data" }) },
      ])
    })
    .add("GET", "/data/continents", (ctx) => {
      const r = ctx.render(2)
      return json(200, CONTINENTS.map((c) => continentJson(c, r)))
    })
    .add("GET", "/data/continents/{location}", (ctx, { location }) => {
      const c = CONTINENTS.find((x) => x.code === location!.toUpperCase())
      if (c === undefined) throw notFound("location")
      return json(200, continentJson(c, ctx.render(2)))
    })
    .add("GET", "/data/countries", (ctx) => {
      const r = ctx.render(2)
      return json(200, Object.keys(COUNTRY_NAMES).map((code) => countryJson(code, r)))
    })
    .add("GET", "/data/countries/{location}", (ctx, { location }) => {
      const code = location!.toUpperCase()
      if (!(code in COUNTRY_NAMES)) throw notFound("location")
      return json(200, countryJson(code, ctx.render(2)))
    })
    .add("GET", "/data/currencies", (ctx) => {
      const r = ctx.render(2)
      return json(200, CURRENCY_CODES.map((code) => currencyJson(code, r)))
    })
    .add("GET", "/data/currencies/current", (ctx) => json(200, currencyJson(String(ctx.state.settings.value("woocommerce_currency")), ctx.render(2), "current")))
    .add("GET", "/data/currencies/{currency}", (ctx, { currency }) => {
      const code = currency!.toUpperCase()
      if (!CURRENCY_CODES.includes(code)) throw wcError(404, "woocommerce_rest_data_invalid_currency", "There are no currencies matching these parameters.")
      return json(200, currencyJson(code, ctx.render(2)))
    })
}
