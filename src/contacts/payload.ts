// What one outbox row's state becomes on the wire. The state is already the contact as the service
// receives it (sql/contacts/enqueue.sql); only the country changes form, deterministically, so a
// re-send carries exactly the same values.

const countryNames = new Intl.DisplayNames(["en"], { type: "region", fallback: "none" })

/** The service's country field takes English country names ("United States"), not ISO codes. */
export const countryName = (code: string): string | undefined => {
  if (!/^[A-Za-z]{2}$/.test(code)) return code
  try {
    return countryNames.of(code.toUpperCase())
  } catch {
    return undefined
  }
}

export const contactPayload = (state: Readonly<Record<string, unknown>>): Record<string, unknown> => {
  const payload: Record<string, unknown> = { ...state }
  if (typeof payload.country === "string") {
    const name = countryName(payload.country)
    if (name === undefined) delete payload.country
    else payload.country = name
  }
  return payload
}
