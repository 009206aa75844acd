// The entry point. `shopsync --version` answers before Effect and the command tree are loaded (which take about a
// second and ~135 MB; serve's and worker's own modules are loaded only when they run, cli/lazy-commands.ts);
// everything else runs main.ts.
import { SHOPSYNC_VERSION } from "../http-client/user-agent.js"

if (process.argv.length === 3 && process.argv[2] === "--version") process.stdout.write(`${SHOPSYNC_VERSION}\n`)
else await import("./main.js")
