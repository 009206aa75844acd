/**
 * A string as an SQL literal, for a script of several statements (which takes no parameters): dollar-quoted with a
 * tag the text does not hold, so nothing in it ends the quote. The text must hold no NUL (it would end the script).
 * Not pg's escapeLiteral: it rewrites the text, doubling each backslash, and a page's JSON has thousands.
 */
export const literal = (text: string): string => {
  let tag = "$q$"
  for (let i = 0; text.includes(tag); i++) tag = `$q${i}$`
  return `${tag}${text}${tag}`
}
