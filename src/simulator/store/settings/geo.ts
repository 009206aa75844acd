// Reference data: continents and their countries, country states and locale details, currencies. Names come from
// the runtime's CLDR data (Intl.DisplayNames) with WooCommerce's own spellings where they differ; the tables here
// only hold what CLDR cannot give (which country is on which continent, states, locale details).

/** The currency codes a store may use (seed part 1, §2.4). */
export const CURRENCY_CODES: ReadonlyArray<string> = (
  "AED AFN ALL AMD ANG AOA ARS AUD AWG AZN BAM BBD BDT BGN BHD BIF BMD BND BOB BRL BSD BTC BTN BWP BYR BZD CAD CDF CHF " +
  "CLP CNY COP CRC CUC CUP CVE CZK DJF DKK DOP DZD EGP ERN ETB EUR FJD FKP GBP GEL GGP GHS GIP GMD GNF GTQ GYD HKD HNL " +
  "HRK HTG HUF IDR ILS IMP INR IQD IRR IRT ISK JEP JMD JOD JPY KES KGS KHR KMF KPW KRW KWD KYD KZT LAK LBP LKR LRD LSL " +
  "LYD MAD MDL MGA MKD MMK MNT MOP MRO MUR MVR MWK MXN MYR MZN NAD NGN NIO NOK NPR NZD OMR PAB PEN PGK PHP PKR PLN PRB " +
  "PYG QAR RON RSD RUB RWF SAR SBD SCR SDG SEK SGD SHP SLL SOS SRD SSP STD SYP SZL THB TJS TMT TND TOP TRY TTD TWD TZS " +
  "UAH UGX USD UYU UZS VEF VND VUV WST XAF XCD XOF XPF YER ZAR ZMW"
).split(" ")

/** Codes CLDR does not know (or names differently from WooCommerce): [name, symbol]. */
const CURRENCY_OVERRIDES: Readonly<Record<string, [string, string]>> = {
  BTC: ["Bitcoin", "฿"],
  GGP: ["Guernsey pound", "£"],
  IMP: ["Manx pound", "£"],
  IRT: ["Iranian toman", "تومان"],
  JEP: ["Jersey pound", "£"],
  PRB: ["Transnistrian ruble", "р."],
  USD: ["United States (US) dollar", "$"],
}

const currencyNames = new Intl.DisplayNames(["en"], { type: "currency" })
const regionNames = new Intl.DisplayNames(["en"], { type: "region" })

export const currencyName = (code: string): string => CURRENCY_OVERRIDES[code]?.[0] ?? currencyNames.of(code) ?? code

export const currencySymbol = (code: string): string => {
  const override = CURRENCY_OVERRIDES[code]?.[1]
  if (override !== undefined) return override
  const parts = new Intl.NumberFormat("en", { style: "currency", currency: code, currencyDisplay: "narrowSymbol" }).formatToParts(1)
  return parts.find((p) => p.type === "currency")?.value ?? code
}

export const CONTINENTS: ReadonlyArray<{ code: string; name: string; countries: ReadonlyArray<string> }> = [
  { code: "AF", name: "Africa", countries: "AO BF BI BJ BW CD CF CG CI CM CV DJ DZ EG EH ER ET GA GH GM GN GQ GW KE KM LR LS LY MA MG ML MR MU MW MZ NA NE NG RE RW SC SD SH SL SN SO SS ST SZ TD TG TN TZ UG YT ZA ZM ZW".split(" ") },
  { code: "AN", name: "Antarctica", countries: "AQ BV GS HM TF".split(" ") },
  { code: "AS", name: "Asia", countries: "AE AF AM AZ BD BH BN BT CC CN CX CY GE HK ID IL IN IO IQ IR JO JP KG KH KP KR KW KZ LA LB LK MM MN MO MV MY NP OM PH PK PS QA SA SG SY TH TJ TL TM TR TW UZ VN YE".split(" ") },
  { code: "EU", name: "Europe", countries: "AD AL AT AX BA BE BG BY CH CZ DE DK EE ES FI FO FR GB GG GI GR HR HU IE IM IS IT JE LI LT LU LV MC MD ME MK MT NL NO PL PT RO RS RU SE SI SJ SK SM UA VA".split(" ") },
  { code: "NA", name: "North America", countries: "AG AI AW BB BL BM BQ BS BZ CA CR CU CW DM DO GD GL GP GT HN HT JM KN KY LC MF MQ MS MX NI PA PM PR SV SX TC TT US VC VG VI".split(" ") },
  { code: "OC", name: "Oceania", countries: "AS AU CK FJ FM GU KI MH MP NC NF NR NU NZ PF PG PN PW SB TK TO TV UM VU WF WS".split(" ") },
  { code: "SA", name: "South America", countries: "AR BO BR CL CO EC FK GF GY PE PY SR UY VE".split(" ") },
]

const WC_COUNTRY_NAMES: Readonly<Record<string, string>> = { US: "United States (US)", GB: "United Kingdom (UK)" }

export const COUNTRY_NAMES: Readonly<Record<string, string>> = Object.fromEntries(
  CONTINENTS.flatMap((c) => c.countries)
    .sort()
    .map((code) => [code, WC_COUNTRY_NAMES[code] ?? regionNames.of(code) ?? code]),
)

const US_STATES =
  "AL:Alabama AK:Alaska AZ:Arizona AR:Arkansas CA:California CO:Colorado CT:Connecticut DE:Delaware DC:District_Of_Columbia " +
  "FL:Florida GA:Georgia HI:Hawaii ID:Idaho IL:Illinois IN:Indiana IA:Iowa KS:Kansas KY:Kentucky LA:Louisiana ME:Maine " +
  "MD:Maryland MA:Massachusetts MI:Michigan MN:Minnesota MS:Mississippi MO:Missouri MT:Montana NE:Nebraska NV:Nevada " +
  "NH:New_Hampshire NJ:New_Jersey NM:New_Mexico NY:New_York NC:North_Carolina ND:North_Dakota OH:Ohio OK:Oklahoma OR:Oregon " +
  "PA:Pennsylvania RI:Rhode_Island SC:South_Carolina SD:South_Dakota TN:Tennessee TX:Texas UT:Utah VT:Vermont VA:Virginia " +
  "WA:Washington WV:West_Virginia WI:Wisconsin WY:Wyoming"
const CA_STATES =
  "AB:Alberta BC:British_Columbia MB:Manitoba NB:New_Brunswick NL:Newfoundland_and_Labrador NT:Northwest_Territories " +
  "NS:Nova_Scotia NU:Nunavut ON:Ontario PE:Prince_Edward_Island QC:Quebec SK:Saskatchewan YT:Yukon_Territory"
const AU_STATES = "ACT:Australian_Capital_Territory NSW:New_South_Wales NT:Northern_Territory QLD:Queensland SA:South_Australia TAS:Tasmania VIC:Victoria WA:Western_Australia"

const parseStates = (text: string) => text.split(" ").map((pair) => ({ code: pair.split(":")[0]!, name: pair.split(":")[1]!.replace(/_/g, " ") }))

/** States (provinces, territories) of the countries that have them in this simulator; others have none. */
export const STATES: Readonly<Record<string, ReadonlyArray<{ code: string; name: string }>>> = {
  US: parseStates(US_STATES),
  CA: parseStates(CA_STATES),
  AU: parseStates(AU_STATES),
}

export interface LocaleInfo {
  currency_code: string
  currency_pos: string
  decimal_sep: string
  dimension_unit: string
  num_decimals: number
  thousand_sep: string
  weight_unit: string
}

const locale = (currency: string, pos: string, decimal: string, thousand: string, imperial: boolean): LocaleInfo => ({
  currency_code: currency,
  currency_pos: pos,
  decimal_sep: decimal,
  dimension_unit: imperial ? "in" : "cm",
  num_decimals: currency === "JPY" ? 0 : 2,
  thousand_sep: thousand,
  weight_unit: imperial ? "lbs" : "kg",
})

/** Locale details of the countries WooCommerce describes (a subset here): only these carry them in the listings. */
export const LOCALES: Readonly<Record<string, LocaleInfo>> = {
  US: locale("USD", "left", ".", ",", true),
  CA: locale("CAD", "left", ".", ",", false),
  GB: locale("GBP", "left", ".", ",", false),
  DE: locale("EUR", "right_space", ",", ".", false),
  FR: locale("EUR", "right_space", ",", " ", false),
  NL: locale("EUR", "left_space", ",", ".", false),
  ES: locale("EUR", "right_space", ",", ".", false),
  AU: locale("AUD", "left", ".", ",", false),
  JP: locale("JPY", "left", ".", ",", false),
}
