import * as fs from "node:fs"
import * as path from "node:path"
import { fileURLToPath } from "node:url"

/**
 * The project's `sql/` folder: the migrations, the models and the long scripts, each read by one module
 * (short statements sit as `sql\`…\`` in the TypeScript that runs them).
 */
const sqlRoot = path.resolve(fileURLToPath(new URL("../../sql", import.meta.url)))

const cache = new Map<string, string>()

/** The text of `sql/<file>`, read once. */
export const sqlText = (file: string): string => {
  let text = cache.get(file)
  if (text === undefined) {
    text = fs.readFileSync(path.join(sqlRoot, file), "utf8")
    cache.set(file, text)
  }
  return text
}

/** The text of `sql/<name>.sql`, read once. */
export const sqlFile = (name: string): string => sqlText(`${name}.sql`)

/** The `.sql` files of a folder, in name order. */
export const sqlFolder = (folder: string): ReadonlyArray<{ name: string; text: string }> =>
  fs.readdirSync(path.join(sqlRoot, folder))
    .filter((f) => f.endsWith(".sql"))
    .sort()
    .map((f) => ({ name: f.replace(/\.sql$/, ""), text: sqlFile(`${folder}/${f.replace(/\.sql$/, "")}`) }))
