import * as net from "node:net"
import * as tls from "node:tls"

/**
 * The reason a TransportFailed carries (in place of a system code) when a plain-http request reached a server that
 * speaks TLS on that port (see send.ts): no retry changes that.
 */
export const SPEAKS_HTTPS = "ERR_HTTP_TO_HTTPS_PORT"

/**
 * What a failed TLS handshake says, from the system error code: `protocol` when no TLS session could be agreed (an
 * https:// URL on a plain-HTTP port answers "wrong version number"), `certificate` when the server's certificate is
 * not trusted or not for this host, `speaks-https` when an http:// URL reached a TLS port. All stay true on every
 * retry. Undefined: not a TLS failure.
 */
export const tlsProblem = (code: string): "protocol" | "certificate" | "speaks-https" | undefined => {
  if (code === SPEAKS_HTTPS) return "speaks-https"
  if (/^(DEPTH_ZERO_SELF_SIGNED_CERT|SELF_SIGNED_CERT_IN_CHAIN|UNABLE_TO_(GET_ISSUER_CERT(_LOCALLY)?|VERIFY_LEAF_SIGNATURE)|CERT_[A-Z_]+|ERR_TLS_CERT_ALTNAME_INVALID)$/.test(code)) {
    return "certificate"
  }
  return /^(ERR_SSL_[A-Z0-9_]+|EPROTO)$/.test(code) ? "protocol" : undefined
}

/**
 * How a TLS server treats a plain HTTP request: it closes the connection without an answer (Node, OpenSSL), resets it,
 * or sends a TLS alert the HTTP parser cannot read (HPE_*). A plain-HTTP server does these only by accident.
 */
export const mayBeTlsPort = (code: string): boolean => /^(UND_ERR_SOCKET|ECONNRESET|HPE_[A-Z_]+)$/.test(code)

/**
 * Whether `host:port` speaks TLS: a handshake completes, or the server answers it with a TLS alert (it wants a client
 * certificate, or another name). Nothing is sent after the handshake, and the certificate is not checked: this only
 * tells which protocol listens there.
 */
export const speaksTls = (host: string, port: number, timeoutMs: number): Promise<boolean> =>
  new Promise((resolve) => {
    const socket = tls.connect({ host, port, rejectUnauthorized: false, ...(net.isIP(host) === 0 ? { servername: host } : {}) })
    const done = (answer: boolean) => {
      clearTimeout(timer)
      socket.destroy()
      resolve(answer)
    }
    const timer = setTimeout(() => done(false), timeoutMs)
    socket.once("secureConnect", () => done(true))
    socket.once("error", (e: NodeJS.ErrnoException) => done(/^ERR_SSL_.*ALERT/.test(e.code ?? "")))
  })
