// A loopback HTTP server that can be closed promptly even with keep-alive clients connected.
import { createServer, type IncomingMessage, type ServerResponse } from "node:http"
import type { AddressInfo } from "node:net"

export interface RunningServer {
  /** e.g. http://127.0.0.1:54321 */
  origin: string
  close(): Promise<void>
}

export const listen = (
  handler: (req: IncomingMessage, res: ServerResponse) => void,
  host: string,
  port: number,
): Promise<RunningServer> =>
  new Promise((resolve, reject) => {
    const server = createServer(handler)
    server.once("error", reject)
    server.listen(port, host, () => {
      server.off("error", reject)
      const address = server.address() as AddressInfo
      const shownHost = address.family === "IPv6" ? `[${address.address}]` : address.address
      resolve({
        origin: `http://${shownHost}:${address.port}`,
        close: () =>
          new Promise<void>((done, fail) => {
            server.close((err) => (err ? fail(err) : done()))
            server.closeAllConnections()
          }),
      })
    })
  })
