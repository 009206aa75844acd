import { type HelpDoc, Options, Primitive, type Span } from "@effect/cli"
import { Option } from "effect"

/** How help is laid out: the width to wrap at, and bold headings only on a terminal (never escapes in a pipe or file). */
export interface HelpStyle {
  readonly width: number
  readonly bold: boolean
}

/** A terminal's width up to 100 columns (longer lines read badly); 80 when the output is not a terminal. */
export const helpStyle = (stream: NodeJS.WriteStream = process.stdout): HelpStyle =>
  stream.isTTY ? { width: Math.max(40, Math.min(stream.columns || 80, 100)), bold: true } : { width: 80, bold: false }

export const spanText = (span: Span.Span): string => {
  switch (span._tag) {
    case "Text":
    case "URI":
      return span.value
    case "Sequence":
      return spanText(span.left) + spanText(span.right)
    default:
      return spanText(span.value)
  }
}

/** The sentences @effect/cli puts before each option's description that only name its type, which the usage shows. */
const TYPE_ONLY = new Set(
  [
    Primitive.getHelp(Primitive.text),
    Primitive.getHelp(Primitive.integer),
    Primitive.getHelp(Primitive.float),
    Primitive.getHelp(Primitive.date),
    Primitive.getHelp(Primitive.boolean(Option.none()))
  ].map(spanText)
)

/**
 * The sentence @effect/cli puts after every optional option ("This setting is optional."), read from the library as
 * TYPE_ONLY is: the usage's brackets already say it, and repeated under each option it drowned the descriptions. A
 * default it names after it ("Defaults to: 5m") is kept.
 */
const OPTIONAL = (() => {
  const help = Options.getHelp(Options.optional(Options.text("x")))
  const last = (doc: HelpDoc.HelpDoc): HelpDoc.HelpDoc =>
    doc._tag === "Sequence" ? last(doc.right) : doc._tag === "DescriptionList" ? last(doc.definitions[0]![1]) : doc
  const sentence = last(help)
  return sentence._tag === "Paragraph" ? spanText(sentence.value) : "This setting is optional."
})()

/** A paragraph's text as shown: without the type-only and the optional sentences (empty when nothing is left). */
const shownText = (text: string): string =>
  TYPE_ONLY.has(text) ? "" : text.startsWith(OPTIONAL) ? text.slice(OPTIONAL.length).trim() : text

const blocks = (doc: HelpDoc.HelpDoc): ReadonlyArray<HelpDoc.HelpDoc> =>
  doc._tag === "Sequence" ? [...blocks(doc.left), ...blocks(doc.right)] : doc._tag === "Empty" ? [] : [doc]

/** Units (words) filled into lines of at most `width` characters (a longer one gets a line of its own), indented. */
const fill = (units: ReadonlyArray<string>, indent: number, width: number, hanging = indent): ReadonlyArray<string> => {
  const lines: Array<string> = []
  let line = ""
  for (const unit of units) {
    const pad = lines.length === 0 ? indent : hanging
    if (line !== "" && pad + line.length + 1 + unit.length > width) {
      lines.push(" ".repeat(pad) + line)
      line = unit
    } else {
      line = line === "" ? unit : `${line} ${unit}`
    }
  }
  if (line !== "") lines.push(" ".repeat(lines.length === 0 ? indent : hanging) + line)
  return lines
}

export const wrap = (text: string, indent: number, width: number): ReadonlyArray<string> =>
  fill(text.split(/\s+/).filter((w) => w !== ""), indent, width)

/** A usage line: a bracketed option stays whole, continuation lines hang under the command. */
export const wrapUsage = (usage: string, indent: number, width: number): ReadonlyArray<string> =>
  fill(usage.match(/\[[^\]]*\]|\S+/g) ?? [], indent, width, indent + 4)

const strong = (text: string, style: HelpStyle) => (style.bold ? `\x1b[1m${text}\x1b[0m` : text)

const renderBlock = (doc: HelpDoc.HelpDoc, indent: number, style: HelpStyle): ReadonlyArray<string> => {
  switch (doc._tag) {
    case "Header":
      return [strong(spanText(doc.value), style)]
    case "Paragraph": {
      const text = shownText(spanText(doc.value))
      return text === "" ? [] : wrap(text, indent, style.width)
    }
    case "DescriptionList":
      return doc.definitions.flatMap(([term, body], i) => [
        ...(i > 0 ? [""] : []),
        " ".repeat(indent) + strong(spanText(term), style),
        ...renderDoc(body, indent + 4, style)
      ])
    case "Enumeration":
      return doc.elements.flatMap((element) => renderDoc(element, indent + 2, style).map((line, i) => (i === 0 ? `${" ".repeat(indent)}- ${line.trimStart()}` : line)))
    default:
      return []
  }
}

/** Blocks in order; a blank line between two definitions (each option is a list of its own). */
const renderDoc = (doc: HelpDoc.HelpDoc, indent: number, style: HelpStyle): ReadonlyArray<string> =>
  blocks(doc).flatMap((block, i, all) => [
    ...(block._tag === "DescriptionList" && all[i - 1]?._tag === "DescriptionList" ? [""] : []),
    ...renderBlock(block, indent, style)
  ])

/** A help document as text: headings at the margin with a blank line before each, what follows them indented by 2. */
export const renderHelp = (doc: HelpDoc.HelpDoc, style: HelpStyle): ReadonlyArray<string> => {
  const lines: Array<string> = []
  let previous: HelpDoc.HelpDoc | undefined
  for (const block of blocks(doc)) {
    if (block._tag === "Header" && lines.length > 0) lines.push("")
    if (block._tag === "DescriptionList" && previous?._tag === "DescriptionList") lines.push("")
    lines.push(...renderBlock(block, block._tag === "Header" ? 0 : 2, style))
    previous = block
  }
  return lines
}

/** Rows of a name and its text, indented by 2, the text wrapped in a column of its own. */
export const twoColumns = (rows: ReadonlyArray<readonly [string, string]>, style: HelpStyle): ReadonlyArray<string> => {
  const nameWidth = Math.max(...rows.map(([name]) => name.length)) + 2
  return rows.flatMap(([name, text]) =>
    wrap(text, 2 + nameWidth, style.width).map((line, i) => (i === 0 ? `  ${strong(name, style)}${" ".repeat(nameWidth - name.length)}${line.trimStart()}` : line))
  )
}

/** A heading, for sections composed here rather than by @effect/cli. */
export const heading = (text: string, style: HelpStyle) => strong(text, style)
