/**
 * The local part of an e-mail address is the customer's name more often than not; its domain tells which provider
 * or company, which is what an operator needs to see. Any run of address characters before an `@` is masked, with or
 * without a domain after it, so an address cut short by a column's length limit is masked too.
 */
const LOCAL_PART = /([^\s@"'`<>()[\]{},;:\\/=])[^\s@"'`<>()[\]{},;:\\/=]*@/gu

/** `text` with every e-mail address's local part masked after its first character: `alice@example.org` → `a***@example.org`. */
export const maskEmails = (text: string): string => text.replace(LOCAL_PART, "$1***@")
