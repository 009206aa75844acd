// Customer writes, with WordPress's rules: the e-mail is required, valid and unique, the username unique and not
// editable, passwords kept only as a hash. Deleting a customer hands their orders on (wp_delete_user's reassign).
import { createHash } from "node:crypto"
import { ADMIN_USER_ID } from "../catalog.ts"
import type { CustomerInput } from "../input.ts"
import type { Address, CustomerRecord } from "../model.ts"
import { emptyAddress, mergeAddress, personFor } from "../people.ts"
import { invalidId, wcError } from "../rest/errors.ts"
import type { StoreState } from "../state.ts"

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/

/** The roles WordPress and WooCommerce register; a shop can add its own (add_role), which the state keeps. */
export const STANDARD_ROLES = ["administrator", "editor", "author", "contributor", "subscriber", "customer", "shop_manager"] as const

/** Passwords are write-only: only a hash is kept, for the storefront's logins. */
export const passwordHash = (password: string): string => createHash("sha256").update(password).digest("hex")

/** The addresses as written, else those of the generated person the customer stands for. */
export const customerAddresses = (c: CustomerRecord): { billing: Address; shipping: Address } => {
  const person = c.person > 0 ? personFor(c.person) : undefined
  return {
    billing: c.billing ?? person?.billing ?? emptyAddress(true),
    shipping: c.shipping ?? person?.shipping ?? emptyAddress(false),
  }
}

const checkEmail = (s: StoreState, email: string, selfId: number | undefined): string => {
  if (!EMAIL.test(email)) throw wcError(400, "rest_invalid_param", "Invalid parameter(s): email", { params: { email: "Invalid email address." } })
  for (const c of s.customerById.values()) {
    if (c.id !== selfId && c.email.toLowerCase() === email.toLowerCase()) {
      throw wcError(400, "registration-error-email-exists", 'An account is already registered with your email address. <a href="#" class="showlogin">Please log in.</a>')
    }
  }
  return email
}

const freeUsername = (s: StoreState, base: string): string => {
  const taken = new Set([...s.customerById.values()].map((c) => c.username))
  if (!taken.has(base)) return base
  for (let n = 2; ; n++) if (!taken.has(`${base}-${n}`)) return `${base}-${n}`
}

export const createCustomer = (s: StoreState, input: CustomerInput): CustomerRecord => {
  if (input.email === undefined || input.email === "") {
    throw wcError(400, "rest_missing_callback_param", "Missing parameter(s): email", { params: ["email"] })
  }
  const email = checkEmail(s, input.email, undefined)
  const username = input.username ?? freeUsername(s, email.split("@")[0]!.replace(/[^a-z0-9_.-]/gi, "") || "customer")
  if ([...s.customerById.values()].some((c) => c.username === username)) {
    throw wcError(400, "registration-error-username-exists", "An account is already registered with that username. Please choose another.")
  }
  const now = s.now()
  const customer: CustomerRecord = {
    id: s.ids.take("user"),
    created: now,
    modified: now,
    person: 0,
    email,
    firstName: input.first_name ?? "",
    lastName: input.last_name ?? "",
    username,
    role: "customer",
    billing: mergeAddress(emptyAddress(true), input.billing),
    shipping: mergeAddress(emptyAddress(false), input.shipping),
    isPaying: false,
    metaData: s.mergeMeta([], input.meta_data),
    ...(input.password === undefined ? {} : { passwordHash: passwordHash(input.password) }),
  }
  s.customerById.set(customer.id, customer)
  s.customerRevision++
  s.hooks.emit("user_register", customer.id, "customer")
  s.hooks.emit("woocommerce_created_customer", customer.id, "customer")
  return customer
}

export const updateCustomer = (s: StoreState, id: number, patch: CustomerInput): CustomerRecord => {
  const c = s.customerById.get(id)
  if (c === undefined) throw invalidId("customer", 400)
  if (patch.username !== undefined && patch.username !== c.username) throw wcError(400, "woocommerce_rest_customer_invalid_argument", "Username isn't editable.")
  const email = patch.email === undefined ? undefined : checkEmail(s, patch.email, id)
  if (email !== undefined) c.email = email
  if (patch.first_name !== undefined) c.firstName = patch.first_name
  if (patch.last_name !== undefined) c.lastName = patch.last_name
  if (patch.billing !== undefined) c.billing = mergeAddress(customerAddresses(c).billing, patch.billing)
  if (patch.shipping !== undefined) c.shipping = mergeAddress(customerAddresses(c).shipping, patch.shipping)
  if (patch.meta_data !== undefined) c.metaData = s.mergeMeta(c.metaData, patch.meta_data)
  if (patch.password !== undefined) c.passwordHash = passwordHash(patch.password)
  c.modified = s.now()
  s.customerRevision++
  s.hooks.emit("profile_update", c.id, "customer")
  return c
}

/**
 * WP_User::set_role (the REST API cannot change a role): a role that is not a standard one is registered with
 * the store, as a plugin's add_role would, so the customers list accepts it as `role`. The user's profile changes.
 */
export const setCustomerRole = (s: StoreState, id: number, role: string): CustomerRecord => {
  const c = s.customerById.get(id)
  if (c === undefined) throw invalidId("customer", 400)
  if (!(STANDARD_ROLES as ReadonlyArray<string>).includes(role)) s.customRoles.add(role)
  c.role = role
  c.modified = s.now()
  s.customerRevision++
  return c
}

/**
 * wp_delete_user: the customer's orders go to the `reassign` user, or become guest orders without one (as
 * WooCommerce resets _customer_user); both are direct database updates that leave date_modified alone.
 */
export const deleteCustomer = (s: StoreState, id: number, reassign: number | undefined): CustomerRecord => {
  const c = s.customerById.get(id)
  if (c === undefined) throw invalidId("customer")
  if (reassign !== undefined && reassign !== 0 && (reassign === id || (reassign !== ADMIN_USER_ID && !s.customerById.has(reassign)))) {
    throw wcError(400, "woocommerce_rest_customer_invalid_reassign", "Invalid resource id for reassignment.")
  }
  for (const family of [s.liveOrders, s.trashedOrders]) for (const o of family.by.id.items) if (o.customerId === id) o.customerId = reassign ?? 0
  s.hooks.emit("delete_user", id, "customer")
  s.customerById.delete(id)
  s.customerRevision++
  return c
}
