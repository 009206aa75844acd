import * as fs from "node:fs"
import * as path from "node:path"
import { Effect } from "effect"
import { isRoot, serverUser } from "./server-process.js"

/** The server's OS user cannot walk to a directory it needs, and shopsync will not open someone else's directory. */
export interface Unreachable {
  readonly target: string
  /** The first directory on the way that the user may not search. */
  readonly blockedAt: string
  readonly mode: number
}

export const unreachableText = (u: Unreachable) =>
  `the postgres OS user (PostgreSQL refuses to run as root, so it runs as postgres) cannot reach ${u.target}: ` +
  `${u.blockedAt} (mode ${(u.mode & 0o777).toString(8).padStart(4, "0")}) does not let it search. shopsync changes no ` +
  `directory outside its own; let postgres through (setfacl -m u:postgres:x ${u.blockedAt}, or chmod o+x ` +
  `${u.blockedAt}), or move what it needs under a directory it can reach (SHOPSYNC_DATA_DIR for the data, the checkout ` +
  `for the binaries)`

interface OsUser {
  readonly uid?: number
  readonly gid?: number
  readonly groups?: ReadonlyArray<number>
}

/** Whether `user` may search (walk through) a directory of this owner and mode. */
const searchable = (stat: fs.Stats, user: OsUser) =>
  stat.uid === user.uid
    ? (stat.mode & 0o100) !== 0
    : stat.gid === user.gid || (user.groups ?? []).includes(stat.gid)
    ? (stat.mode & 0o010) !== 0
    : (stat.mode & 0o001) !== 0

const within = (dir: string, root: string) => dir === root || dir.startsWith(root + path.sep)

/**
 * As root, the server runs as `postgres`, which must walk to `target`. A directory on the way inside `own` (the
 * checkout: shopsync made it or was installed there) gets the search bit for others, logged; one outside it is left as
 * it is and named, with the fix, since opening it would open everything under it to every user (a home directory).
 */
export const makeReachable = (target: string, own: string) =>
  Effect.gen(function*() {
    if (!isRoot()) return
    const user = serverUser()
    for (let d = path.dirname(target); d !== path.dirname(d); d = path.dirname(d)) {
      if (!fs.existsSync(d)) continue
      const stat = fs.statSync(d)
      if (searchable(stat, user)) continue
      if (!within(d, own)) return yield* Effect.fail<Unreachable>({ target, blockedAt: d, mode: stat.mode })
      fs.chmodSync(d, stat.mode | 0o001)
      yield* Effect.logInfo(`warehouse: made ${d} traversable (o+x) so the postgres user can reach ${target}`)
    }
  })
