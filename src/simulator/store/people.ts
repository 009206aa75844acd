// Deterministic identities: a number (the "person" seed) stands for a whole name, e-mail and address, so
// orders need not store strings. Equal seeds mean the same shopper (repeat guests, a customer's orders).
import { PLACES } from "./catalog.ts"
import type { Address } from "./model.ts"
import { createRng } from "../http/prng.ts"

const FIRST = [
  "Emma", "Liam", "Olivia", "Noah", "Ava", "Elijah", "Sophia", "James", "Isabella", "Lucas", "Mia", "Mateo",
  "Amelia", "Levi", "Harper", "Ethan", "Evelyn", "Aiden", "Luna", "Chloé", "Jonas", "Zoë", "Renée", "José",
]
const LAST = [
  "Smith", "Johnson", "Williams", "Brown", "Jones", "Garcia", "Miller", "Davis", "Rodriguez", "Martinez",
  "Hernandez", "Lopez", "Wilson", "Anderson", "Thomas", "Taylor", "Moore", "Jackson", "Martin", "Lee",
  "Müller", "O'Brien", "van Dijk", "Dubois",
]
const COMPANIES = ["Acme Corp", "Globex", "Initech", "Umbrella Ltd", "Stark Industries"]
const PLACE_WEIGHTS = PLACES.map((p) => p.weight)

export interface Person {
  billing: Address & { email: string }
  shipping: Address
}

const asciiLower = (s: string): string =>
  s.normalize("NFD").replace(/[^A-Za-z]/g, "").toLowerCase()

export const personFor = (seed: number): Person => {
  const rng = createRng(Math.imul(seed, 0x9e3779b1))
  const first = rng.pick(FIRST)
  const last = rng.pick(LAST)
  const place = PLACES[rng.weighted(PLACE_WEIGHTS)]!
  const company = rng.chance(0.1) ? rng.pick(COMPANIES) : ""
  const number = rng.int(1, 999)
  const street = `${number} ${rng.pick(place.streets)}`
  const apartment = rng.chance(0.25) ? `Apt ${rng.int(1, 40)}` : ""
  const phone = place.country === "US" ? `(${rng.int(201, 989)}) 555-${String(rng.int(0, 9999)).padStart(4, "0")}` : `+${rng.int(30, 49)} ${rng.int(100000000, 999999999)}`
  const email = `${asciiLower(first)}.${asciiLower(last)}${seed}@example.com`
  const address = {
    first_name: first,
    last_name: last,
    company,
    address_1: street,
    address_2: apartment,
    city: place.city,
    state: place.state,
    postcode: place.postcode,
    country: place.country,
  }
  return { billing: { ...address, email, phone }, shipping: { ...address, phone: "" } }
}

/** Address fields in WooCommerce's order. */
export const ADDRESS_KEYS = ["first_name", "last_name", "company", "address_1", "address_2", "city", "state", "postcode", "country", "email", "phone"] as const

/** Keys in WooCommerce's order: email (billing only) comes before phone. */
export const emptyAddress = (withEmail: boolean): Address => ({
  first_name: "",
  last_name: "",
  company: "",
  address_1: "",
  address_2: "",
  city: "",
  state: "",
  postcode: "",
  country: "",
  ...(withEmail ? { email: "" } : {}),
  phone: "",
})

/** `patch` over `base`, keeping only address fields. */
export const mergeAddress = <A extends Partial<Address>>(base: A, patch: Partial<Address> | undefined): A => {
  const out: Partial<Address> = { ...base }
  for (const k of ADDRESS_KEYS) {
    const v = patch?.[k]
    if (v !== undefined && v !== null) out[k] = String(v)
  }
  return out as A
}
