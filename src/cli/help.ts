import { CliConfig, CommandDescriptor, HelpDoc, Usage } from "@effect/cli"
import { heading, type HelpStyle, renderHelp, spanText, twoColumns, wrap, wrapUsage } from "./help-text.js"

/** A command as its help and usage errors see it: its own descriptor (without its subcommands) and its subcommands. */
export interface CommandNode {
  readonly name: string
  readonly descriptor: CommandDescriptor.Command<unknown>
  readonly description: string
  readonly children: ReadonlyArray<CommandNode>
}

/**
 * The shape of @effect/cli's descriptors (0.77): its public `getSubcommands` stops one level down, at a subcommand's own
 * descriptor, so the tree of `shopsync marketing-hooks list` is read from these fields.
 */
type Instruction =
  | { readonly _tag: "Standard" | "GetUserInput"; readonly name: string; readonly description: HelpDoc.HelpDoc }
  | { readonly _tag: "Map"; readonly command: CommandDescriptor.Command<unknown> }
  | { readonly _tag: "Subcommands"; readonly parent: CommandDescriptor.Command<unknown>; readonly children: ReadonlyArray<CommandDescriptor.Command<unknown>> }

export const docText = (doc: HelpDoc.HelpDoc): string =>
  doc._tag === "Sequence"
    ? [docText(doc.left), docText(doc.right)].filter((t) => t !== "").join(" ")
    : doc._tag === "Paragraph" || doc._tag === "Header"
    ? spanText(doc.value)
    : ""

export const commandTree = (descriptor: CommandDescriptor.Command<unknown>): CommandNode => {
  const op = descriptor as unknown as Instruction
  switch (op._tag) {
    case "Map":
      return commandTree(op.command)
    case "Subcommands":
      return { ...commandTree(op.parent), children: op.children.map(commandTree) }
    default:
      return { name: op.name, descriptor, description: docText(op.description), children: [] }
  }
}

/** The first sentence of a description: what the list of commands shows. */
const summary = (description: string) => /^.*?\.(?=\s|$)/.exec(description)?.[0] ?? description

/** `shopsync backfill --since YYYY-MM-DD [--until YYYY-MM-DD] …`, or `shopsync simulate <command>` for a group. */
const usageLine = (path: ReadonlyArray<CommandNode>): string => {
  const node = path[path.length - 1]!
  const words = path.map((n) => n.name)
  if (node.children.length > 0) return `${words.join(" ")} <command> [options]`
  return [...words.slice(0, -1), docText(Usage.getHelp(CommandDescriptor.getUsage(node.descriptor)))].join(" ")
}

/**
 * The help of the command at the end of `path` (its first element the root): usage, description and options as
 * @effect/cli describes them, then its subcommands; the options every command takes (--help, --log-level, …) on the
 * root's help only.
 */
export const helpText = (path: ReadonlyArray<CommandNode>, style: HelpStyle): string => {
  const node = path[path.length - 1]!
  const config = CliConfig.make({ showBuiltIns: path.length === 1 })
  const lines = [
    heading("USAGE", style),
    ...wrapUsage(usageLine(path), 2, style.width),
    "",
    ...renderHelp(CommandDescriptor.getHelp(node.descriptor, config), style)
  ]
  if (node.children.length > 0) {
    const words = path.map((n) => n.name).join(" ")
    lines.push("", heading("COMMANDS", style), ...twoColumns(node.children.map((c) => [c.name, summary(c.description)]), style))
    lines.push("", ...wrap(`Run \`${words} <command> --help\` for what a command does and its options.`, 0, style.width))
  }
  return `${lines.join("\n")}\n`
}
