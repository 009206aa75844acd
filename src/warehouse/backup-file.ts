import * as fs from "node:fs"
import { Data, Effect } from "effect"

/** A backup that cannot be written or restored: which file, and why. */
export class BackupFailed extends Data.TaggedError("BackupFailed")<{ readonly file: string; readonly reason: string }> {
  override get message() {
    return `backup ${this.file}: ${this.reason}`
  }
}

/** What is at `path` without following a symbolic link there, or undefined when nothing is. */
const entryAt = (file: string, path: string) =>
  Effect.try({
    try: () => fs.lstatSync(path, { throwIfNoEntry: false }),
    catch: (e) => new BackupFailed({ file, reason: `cannot inspect ${path} (${String(e)}); choose a readable directory` })
  })

/**
 * FILE is replaced by a rename at the end (which replaces a link itself, never its target), but a symbolic link
 * there means someone expects the backup to land elsewhere: refused rather than guessed.
 */
const checkTarget = (file: string) =>
  Effect.flatMap(entryAt(file, file), (entry) =>
    entry === undefined || entry.isFile()
      ? Effect.void
      : new BackupFailed({ file, reason: `${file} exists and is ${entry.isSymbolicLink() ? "a symbolic link" : "not a regular file"}; refusing to replace it (remove it or choose another path)` }))

/**
 * A `.partial` left by an interrupted backup is removed when it is a regular file of ours; anything else there (a
 * symbolic link, a directory, another user's file) could be a trap set for us and is refused, untouched.
 */
const clearStalePartial = (file: string, partial: string) =>
  Effect.flatMap(entryAt(file, partial), (entry) => {
    if (entry === undefined) return Effect.void
    const ours = entry.isFile() && entry.uid === process.getuid?.()
    if (!ours) {
      const what = entry.isSymbolicLink() ? "a symbolic link" : entry.isFile() ? "a file of another user" : "not a regular file"
      return new BackupFailed({ file, reason: `${partial} exists and is ${what}; refusing to write through it (remove it or choose another path)` })
    }
    return Effect.try({
      try: () => fs.unlinkSync(partial),
      catch: (e) => new BackupFailed({ file, reason: `cannot remove the stale ${partial} (${String(e)})` })
    })
  })

/**
 * Opens `<file>.partial` for the backup: created new (O_EXCL: never an existing file's mode or owner, never through a
 * symbolic link), readable by its owner only (0600: it holds customer data). Its descriptor.
 */
export const openBackupPartial = (file: string, partial: string) =>
  Effect.gen(function*() {
    yield* checkTarget(file)
    yield* clearStalePartial(file, partial)
    const { O_WRONLY, O_CREAT, O_EXCL, O_NOFOLLOW } = fs.constants
    return yield* Effect.try({
      try: () => fs.openSync(partial, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, 0o600),
      catch: (e) => new BackupFailed({ file, reason: `cannot create ${partial} (${String(e)}); choose a writable path` })
    })
  })
