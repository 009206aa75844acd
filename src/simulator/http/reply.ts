// What a handler returns; only the server writes it to the socket, so faults and logging stay in one place.
import type { ServerResponse } from "node:http"

export interface Reply {
  status: number
  /** Serialised as JSON unless `text` is given. */
  body?: unknown
  /** A raw body (HTML pages, empty bodies) sent with `contentType`. */
  text?: string
  contentType?: string
  headers?: Readonly<Record<string, string>>
}

export const json = (status: number, body: unknown, headers?: Record<string, string>): Reply =>
  headers === undefined ? { status, body } : { status, body, headers }

export const writeReply = (res: ServerResponse, reply: Reply, extraHeaders: Record<string, string> = {}): void => {
  const text = reply.text ?? JSON.stringify(reply.body ?? null)
  const contentType = reply.text !== undefined ? reply.contentType : "application/json; charset=UTF-8"
  const headers: Record<string, string | number> = { ...extraHeaders, ...reply.headers, "Content-Length": Buffer.byteLength(text) }
  if (contentType !== undefined) headers["Content-Type"] = contentType
  res.writeHead(reply.status, headers)
  res.end(text)
}
