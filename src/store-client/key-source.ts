/**
 * Where the store's address and key were given, so that a message names what to change: absent, the STORE_*
 * variables; "options", a command's --url and --key (`stores add`, `stores set` before saving); a registered store,
 * its `stores set` (the STORE_* variables do not apply to it).
 */
export type KeySource = "options" | { readonly registered: string }

/** What holds the API root: `STORE_API_URL`, `--url`, or the registered store's URL. */
export const urlName = (source: KeySource | undefined): string =>
  source === undefined ? "STORE_API_URL" : source === "options" ? "--url" : `store ${source.registered}'s URL`

const setUrlCommand = (storeId: string, url: string) => `\`shopsync stores set ${storeId} --url ${url}\``

/** For a registered store, the command that changes its URL, to follow a sentence naming it; else nothing. */
export const changeUrl = (source: KeySource | undefined): string =>
  typeof source === "object" ? `; ${setUrlCommand(source.registered, "…")} changes it` : ""

/** "check STORE_API_URL (why)", with the command that changes a registered store's URL. */
export const checkUrl = (source: KeySource | undefined, why?: string): string =>
  `check ${urlName(source)}${why === undefined ? "" : ` (${why})`}${changeUrl(source)}`

/** How to make the API root `url`. */
export const setUrl = (source: KeySource | undefined, url: string): string =>
  source === undefined ? `set STORE_API_URL=${url}` : source === "options" ? `use --url ${url}` : `run ${setUrlCommand(source.registered, url)}`

/** How to give the store a key it accepts. */
export const checkKey = (source: KeySource | undefined): string =>
  source === undefined
    ? "check STORE_CONSUMER_KEY and STORE_CONSUMER_SECRET"
    : source === "options"
    ? "check --key and the consumer secret"
    : `give store ${source.registered} its right key and secret: \`shopsync stores set ${source.registered} --key ck_… ` +
      "--secret-env NAME` (or the secret on standard input)"
