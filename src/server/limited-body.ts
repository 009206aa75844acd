import type * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as NodeHttpServerRequest from "@effect/platform-node/NodeHttpServerRequest"
import { Effect } from "effect"
import { BodyBudget } from "./listener.js"

/** How much more of a too-large body is read and dropped, so that a client still sending gets the 413, not a reset. */
const DRAIN_FACTOR = 8

/** A request body: its bytes, or why it was not read whole (over the limit: 413; the body budget spent: 503). */
export type BodyRead = Uint8Array | "too-large" | "busy"

/**
 * The body, or "too-large" once it passes `max` bytes. What follows is read and dropped, up to DRAIN_FACTOR × `max`
 * (a client that writes its whole body before reading the answer would otherwise see its connection reset instead of
 * the 413); past that reading stops (the request is paused, not destroyed; the caller closes the connection with the
 * answer). A declared Content-Length over `max` is refused before a byte is read. Every buffered chunk is drawn from
 * the BodyBudget and given back once the body is handed over or dropped; a chunk that does not fit makes it "busy".
 */
export const limitedBody = (request: HttpServerRequest.HttpServerRequest, max: number) =>
  Effect.flatMap(BodyBudget, (budget) => {
    if (Number(request.headers["content-length"] ?? "0") > max) return Effect.succeed<BodyRead>("too-large")
    const req = NodeHttpServerRequest.toIncomingMessage(request)
    return Effect.async<BodyRead>((resume) => {
      const chunks: Buffer[] = []
      let size = 0
      let reserved = 0
      const release = () => {
        budget.give(reserved)
        reserved = 0
        chunks.length = 0
      }
      const stop = () => {
        req.off("data", onData).off("end", onEnd).off("error", onError).off("close", onError)
        release()
      }
      const done = (result: BodyRead) => {
        stop()
        resume(Effect.succeed(result))
      }
      const onData = (chunk: Buffer) => {
        size += chunk.length
        if (size > max) {
          release()
          if (size <= DRAIN_FACTOR * max) return
          req.pause()
          return done("too-large")
        }
        if (!budget.take(chunk.length)) {
          req.pause()
          return done("busy")
        }
        reserved += chunk.length
        chunks.push(chunk)
      }
      const onEnd = () => done(size <= max ? new Uint8Array(Buffer.concat(chunks)) : "too-large")
      // A client gone mid-body (or timed out by the server) sent nothing usable: as good as too large, nothing is stored.
      const onError = () => done("too-large")
      req.on("data", onData).on("end", onEnd).on("error", onError).on("close", onError)
      // Interrupted (the server closing the request): the reserved bytes go back all the same.
      return Effect.sync(stop)
    })
  })
