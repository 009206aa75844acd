import { randomBytes } from "node:crypto"
import * as fs from "node:fs"
import { Data, Effect, Schema } from "effect"

/** The embedded server's roles: the bootstrap superuser (setup only) and the non-superuser owner shopsync connects as. */
export const SUPERUSER = "postgres"
export const OWNER = "shopsync"

export const Credentials = Schema.Struct({
  superuserPassword: Schema.String.pipe(Schema.minLength(20)),
  ownerPassword: Schema.String.pipe(Schema.minLength(20))
})
export type Credentials = typeof Credentials.Type

export class CredentialsUnreadable extends Data.TaggedError("CredentialsUnreadable")<{
  readonly file: string
  readonly reason: string
}> {
  override get message() {
    return `the embedded warehouse's credentials file ${this.file} is unreadable (${this.reason}). Run shopsync as the ` +
      `user who created it, or remove it: the next command sets new passwords through single-user mode.`
  }
}

/** `<dataDir>.credentials`, beside the data directory (which belongs to the server's OS user, not to shopsync's). */
export const credentialsFile = (dataDir: string) => `${dataDir}.credentials`

/** 32 random bytes, URL-safe: goes into a connection URL as is. */
export const randomPassword = () => randomBytes(32).toString("base64url")

export const generateCredentials = (): Credentials => ({
  superuserPassword: randomPassword(),
  ownerPassword: randomPassword()
})

/** The credentials of a data directory, or undefined when it has none (new, or created by an older shopsync). */
export const readCredentials = (dataDir: string) => {
  const file = credentialsFile(dataDir)
  return Effect.try({
    try: () => (fs.existsSync(file) ? fs.readFileSync(file, "utf8") : undefined),
    catch: (e) => new CredentialsUnreadable({ file, reason: String(e) })
  }).pipe(
    Effect.flatMap((text) =>
      text === undefined
        ? Effect.succeed(undefined)
        : Schema.decodeUnknown(Schema.parseJson(Credentials))(text).pipe(
          Effect.mapError((e) => new CredentialsUnreadable({ file, reason: e.message }))
        )
    )
  )
}

/**
 * Written to a temporary file created with mode 0600 (never readable by others, even for a moment), then renamed
 * over the old one.
 */
export const writeCredentials = (dataDir: string, credentials: Credentials) =>
  Effect.try({
    try: () => {
      const file = credentialsFile(dataDir)
      const temporary = `${file}.${process.pid}.tmp`
      fs.writeFileSync(temporary, `${JSON.stringify(credentials, null, 2)}\n`, { mode: 0o600, flag: "wx" })
      fs.renameSync(temporary, file)
    },
    catch: (e) => new CredentialsUnreadable({ file: credentialsFile(dataDir), reason: `could not write it: ${String(e)}` })
  })
