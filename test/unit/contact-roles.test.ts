import { ConfigProvider, Effect, Either } from "effect"
import { describe, expect, it } from "vitest"
import { contactRolesConfig } from "../../src/config/settings.js"

const read = (env: Record<string, string>) =>
  Effect.runSync(Effect.either(Effect.withConfigProvider(contactRolesConfig, ConfigProvider.fromMap(new Map(Object.entries(env))))))

describe("SHOPSYNC_CONTACT_ROLES", () => {
  it("defaults to customer and subscriber, and takes a comma-separated list of role names", () => {
    expect(read({})).toEqual(Either.right(["customer", "subscriber"]))
    expect(read({ SHOPSYNC_CONTACT_ROLES: " customer , wholesale_buyer,vip-member " })).toEqual(Either.right(["customer", "wholesale_buyer", "vip-member"]))
  })

  it("refuses an empty list or a name that is not a role's, naming the variable", () => {
    for (const value of ["", " , ", "customer;subscriber", "shop manager"]) {
      const result = read({ SHOPSYNC_CONTACT_ROLES: value })
      expect(Either.isLeft(result)).toBe(true)
      if (Either.isLeft(result)) expect(String(result.left)).toContain("SHOPSYNC_CONTACT_ROLES must be a comma-separated list")
    }
  })
})
