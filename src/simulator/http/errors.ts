// An error that is already an HTTP answer: handlers throw it, the server writes it as is.

export class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly body: unknown,
    readonly headers: Readonly<Record<string, string>> = {},
  ) {
    super(`HTTP ${status}: ${JSON.stringify(body)}`)
  }
}
