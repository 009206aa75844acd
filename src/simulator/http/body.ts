// Reads a request body with a size cap (a simulator must not be knocked over by a runaway client).
import type { IncomingMessage } from "node:http"

export const readBody = (req: IncomingMessage, limitBytes = 10 * 1024 * 1024): Promise<string> =>
  new Promise((resolve, reject) => {
    const chunks: Buffer[] = []
    let size = 0
    req.on("data", (chunk: Buffer) => {
      size += chunk.length
      if (size > limitBytes) {
        reject(new Error(`request body larger than ${limitBytes} bytes`))
        req.destroy()
        return
      }
      chunks.push(chunk)
    })
    req.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")))
    req.on("error", reject)
  })
