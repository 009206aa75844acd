import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"

/**
 * A new directory for SHOPSYNC_DATA_DIR. mkdtemp makes it 0700; as root the server runs as `postgres`, which must
 * search it, and shopsync opens no directory outside the checkout (it names it instead), so the test opens its own.
 */
export const reachableTempDir = (prefix: string) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix))
  fs.chmodSync(dir, 0o711)
  return dir
}
