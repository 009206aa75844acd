import * as fs from "node:fs"
import * as path from "node:path"
import { fileURLToPath } from "node:url"

/** The project's `sql/` folder: every statement shopsync runs is a file there. */
const sqlRoot = path.resolve(fileURLToPath(new URL("../../sql", import.meta.url)))

const cache = new Map<string, string>()

/** The text of `sql/<name>.sql`, read once. */
export const sqlFile = (name: string): string => {
  let text = cache.get(name)
  if (text === undefined) {
    text = fs.readFileSync(path.join(sqlRoot, `${name}.sql`), "utf8")
    cache.set(name, text)
  }
  return text
}

/** The `.sql` files of a folder, in name order. */
export const sqlFolder = (folder: string): ReadonlyArray<{ name: string; text: string }> =>
  fs.readdirSync(path.join(sqlRoot, folder))
    .filter((f) => f.endsWith(".sql"))
    .sort()
    .map((f) => ({ name: f.replace(/\.sql$/, ""), text: sqlFile(`${folder}/${f.replace(/\.sql$/, "")}`) }))
