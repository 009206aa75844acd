import { Command } from "@effect/cli"
import { Effect } from "effect"
import { DatabaseLive } from "../warehouse/database.js"
import { dbtSources } from "../warehouse/dbt-sources.js"
import { migrate } from "../warehouse/migrate.js"

export const dbtSourcesCommand = Command.make("dbt-sources", {}, () =>
  Effect.gen(function*() {
    yield* migrate
    process.stdout.write(yield* dbtSources)
  }).pipe(Effect.provide(DatabaseLive))).pipe(
    Command.withDescription(
      "Prints a dbt sources.yml for the analytics and store schemas, from the warehouse's own comments, with source " +
        "freshness on analytics.freshness (docs/dbt/sources.yml is a copy). shopsync does not run dbt: no Python needed."
    )
  )
