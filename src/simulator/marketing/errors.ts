// Error answers. Every failure is an ApiError thrown by a handler; the server writes its body
// `{"errors":[entry]}` and a batch keeps only the entry, for its `errors` map.
import { HttpError } from "../http/errors.ts"

export type ErrorEntry = Record<string, unknown>
export type FieldErrors = Record<string, string[]>

export class ApiError extends HttpError {
  constructor(
    status: number,
    readonly entry: ErrorEntry,
    headers: Record<string, string> = {},
  ) {
    super(status, { errors: [entry] }, headers)
  }
}

/** The API controllers' error: `{code, message, details, type: null}`. */
export const apiError = (status: number, message: string, details: unknown = []): ApiError =>
  new ApiError(status, { code: status, message, details, type: null })

export const notFound = (): ApiError => apiError(404, "Item was not found.")

/** A form validation failure: the message lists `field: reason` pairs, `details` maps field → reasons. */
export const validationError = (details: FieldErrors): ApiError =>
  apiError(
    400,
    Object.entries(details).map(([field, reasons]) => `${field}: ${reasons.join(", ")}`).join(", "),
    details,
  )

/** OAuth failures (token endpoint and token checks) name the OAuth error type instead of details. */
export const oauthError = (
  status: number,
  type: string,
  message: string,
  headers: Record<string, string> = {},
): ApiError => new ApiError(status, { message, code: status, type }, headers)
