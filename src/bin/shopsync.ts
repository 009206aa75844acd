// The entry point. `shopsync --version` answers before Effect and the command tree are loaded (which take over a
// second and ~170 MB); everything else runs main.ts.
import { SHOPSYNC_VERSION } from "../http-client/user-agent.js"

if (process.argv.length === 3 && process.argv[2] === "--version") process.stdout.write(`${SHOPSYNC_VERSION}\n`)
else await import("./main.js")
