import type * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as NodeHttpServerRequest from "@effect/platform-node/NodeHttpServerRequest"
import { Effect, Option } from "effect"

/** How much more of a too-large body is read and dropped, so that a client still sending gets the 413, not a reset. */
const DRAIN_FACTOR = 8

/**
 * The body, or none once it passes `max` bytes. What follows is read and dropped, up to DRAIN_FACTOR × `max` (a
 * client that writes its whole body before reading the answer would otherwise see its connection reset instead of
 * the 413); past that reading stops (the request is paused, not destroyed; the caller closes the connection with the
 * answer). A declared Content-Length over `max` is refused before a byte is read.
 */
export const limitedBody = (request: HttpServerRequest.HttpServerRequest, max: number) => {
  if (Number(request.headers["content-length"] ?? "0") > max) return Effect.succeed(Option.none<Uint8Array>())
  const req = NodeHttpServerRequest.toIncomingMessage(request)
  return Effect.async<Option.Option<Uint8Array>>((resume) => {
    const chunks: Buffer[] = []
    let size = 0
    const done = (result: Option.Option<Uint8Array>) => {
      req.off("data", onData).off("end", onEnd).off("error", onError)
      resume(Effect.succeed(result))
    }
    const onData = (chunk: Buffer) => {
      size += chunk.length
      if (size <= max) return void chunks.push(chunk)
      chunks.length = 0
      if (size <= DRAIN_FACTOR * max) return
      req.pause()
      done(Option.none())
    }
    const onEnd = () => done(size <= max ? Option.some(new Uint8Array(Buffer.concat(chunks))) : Option.none())
    // A client gone mid-body sent nothing usable: as good as too large, nothing is stored.
    const onError = () => done(Option.none())
    req.on("data", onData).on("end", onEnd).on("error", onError)
  })
}
