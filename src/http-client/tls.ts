/**
 * What a failed TLS handshake says, from the system error code: `protocol` when no TLS session could be agreed (an
 * https:// URL on a plain-HTTP port answers "wrong version number"), `certificate` when the server's certificate is
 * not trusted or not for this host. Both stay true on every retry. Undefined: not a TLS failure.
 */
export const tlsProblem = (code: string): "protocol" | "certificate" | undefined => {
  if (/^(DEPTH_ZERO_SELF_SIGNED_CERT|SELF_SIGNED_CERT_IN_CHAIN|UNABLE_TO_(GET_ISSUER_CERT(_LOCALLY)?|VERIFY_LEAF_SIGNATURE)|CERT_[A-Z_]+|ERR_TLS_CERT_ALTNAME_INVALID)$/.test(code)) {
    return "certificate"
  }
  return /^(ERR_SSL_[A-Z0-9_]+|EPROTO)$/.test(code) ? "protocol" : undefined
}
