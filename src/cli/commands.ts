import { Command } from "@effect/cli"
import { backfillCommand } from "./backfill-command.js"
import { checkCommand } from "./check-command.js"
import { serveCommand, workerCommand } from "./lazy-commands.js"
import { dbtSourcesCommand } from "./dbt-sources-command.js"
import { demoCommand } from "./demo-command.js"
import { marketingHooksCommand } from "./marketing-hooks-command.js"
import { migrateCommand } from "./migrate-command.js"
import { pushCommand } from "./push-command.js"
import { resyncCommand } from "./resync-command.js"
import { simulateCommand } from "./simulate-command.js"
import { statusCommand } from "./status-command.js"
import { storeHooksCommand } from "./store-hooks-command.js"
import { storesCommand } from "./stores-command.js"
import { syncCommand } from "./sync-command.js"
import { verifyCommand } from "./verify-command.js"
import { warehouseCommand } from "./warehouse-command.js"

/** The command tree of `shopsync`: what the entry point runs and what help and usage errors are read from. */
export const shopsync = Command.make("shopsync").pipe(
  Command.withDescription(
    "Syncs a commerce store's API into a PostgreSQL warehouse (embedded unless DATABASE_URL is set), keeps " +
      "analytics.daily_net_sales current and pushes the store's customers to a marketing service as contacts. " +
      "Settings come from the environment, then from the config file SHOPSYNC_CONFIG (default ./shopsync.env): " +
      "STORE_API_URL, STORE_CONSUMER_KEY, STORE_CONSUMER_SECRET, STORE_ID, DATABASE_URL, and for the contact push " +
      "MARKETING_BASE_URL, MARKETING_CLIENT_ID, MARKETING_CLIENT_SECRET; config/shopsync.env.example lists them all. " +
      "Exit codes: 0 done; 1 failed (a wrong setting included, before anything ran); 2 some streams failed, the others ran; " +
      "64 a mistake on the command line; 75 another run holds the store's lock; verify: 2 drift found; 130/143 stopped by SIGINT/SIGTERM."
  ),
  Command.withSubcommands([
    syncCommand,
    backfillCommand,
    verifyCommand,
    resyncCommand,
    pushCommand,
    migrateCommand,
    statusCommand,
    checkCommand,
    serveCommand,
    storeHooksCommand,
    storesCommand,
    workerCommand,
    marketingHooksCommand,
    simulateCommand,
    warehouseCommand,
    dbtSourcesCommand,
    demoCommand
  ])
)
