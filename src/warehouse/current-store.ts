import { Context, Layer } from "effect"

/**
 * The store a job works on: provided once per job (jobs/layers.ts `storeRepositories`, the status readers) under the
 * store's repositories, which read it as they are made. A repository's `Default` is one layer value, memoized by
 * reference within a layer build: give each store its own build (`Effect.provide` per job), never two stores'
 * repositories in one layer graph, where the second store would get the first's.
 */
export class CurrentStore extends Context.Tag("shopsync/CurrentStore")<CurrentStore, { readonly storeId: string }>() {
  static readonly layer = (storeId: string) => Layer.succeed(CurrentStore, { storeId })
}
