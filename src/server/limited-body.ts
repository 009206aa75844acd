import type * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as NodeHttpServerRequest from "@effect/platform-node/NodeHttpServerRequest"
import { Effect, Option } from "effect"

/**
 * The body, or none once it passes `max` bytes: reading stops there (the request is paused, not destroyed, so the
 * answer still reaches the client; the caller closes the connection with it). A declared Content-Length over
 * `max` is refused before a byte is read.
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
      req.pause()
      done(Option.none())
    }
    const onEnd = () => done(Option.some(new Uint8Array(Buffer.concat(chunks))))
    // A client gone mid-body sent nothing usable: as good as too large, nothing is stored.
    const onError = () => done(Option.none())
    req.on("data", onData).on("end", onEnd).on("error", onError)
  })
}
