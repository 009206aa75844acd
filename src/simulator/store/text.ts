// Text transformations WordPress applies: slugs from titles, and paragraphs for rendered content.

/** sanitize_title: accents dropped, lower case, runs of anything but letters and digits become one hyphen. */
export const sanitizeTitle = (text: string): string =>
  text
    .normalize("NFD")
    .replace(/[\u0300-\u036f]/g, "")
    .toLowerCase()
    .replace(/[^a-z0-9_]+/g, "-")
    .replace(/^-+|-+$/g, "")

/** A slug not yet taken: WordPress appends -2, -3, ... */
export const uniqueSlug = (base: string, taken: (slug: string) => boolean): string => {
  if (!taken(base)) return base
  for (let n = 2; ; n++) if (!taken(`${base}-${n}`)) return `${base}-${n}`
}

/** wpautop for plain text: blank-line separated blocks become paragraphs, single newlines <br />. */
export const wpautop = (text: string): string =>
  text.trim() === ""
    ? ""
    : text
        .trim()
        .split(/\n\s*\n/)
        .map((block) => `<p>${block.trim().replace(/\n/g, "<br />\n")}</p>\n`)
        .join("")
