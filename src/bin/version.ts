import * as fs from "node:fs"

/** The version `--version` prints and the CLI reports: package.json's, read where src/, dist/ and the image all have it. */
export const VERSION: string = (JSON.parse(fs.readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as { version: string }).version
