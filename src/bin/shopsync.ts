// The entry point. `shopsync --version` answers from package.json before Effect and the command tree are loaded
// (which take over a second and ~170 MB); everything else runs main.ts.
import { VERSION } from "./version.js"

if (process.argv.length === 3 && process.argv[2] === "--version") process.stdout.write(`${VERSION}\n`)
else await import("./main.js")
