import { CliConfig, CommandDescriptor, CommandDirective, Usage, type ValidationError } from "@effect/cli"
import type { CliApp } from "@effect/cli"
import { Data, Effect } from "effect"
import { closest } from "../config/did-you-mean.js"
import { type CommandNode, commandTree, docText } from "./help.js"

/** A mistake on the command line (unknown command or option, missing or bad value): exit 64, EX_USAGE. */
export class UsageError extends Data.TaggedError("UsageError")<{ readonly message: string }> {}

/** What the command line asks for: a command's help, or a run (`command`: the first word after shopsync). */
export type Plan =
  | { readonly _tag: "Help"; readonly path: ReadonlyArray<CommandNode> }
  | { readonly _tag: "Run"; readonly command: string | undefined }

/** The options @effect/cli adds to every command. */
const BUILT_IN = ["--help", "-h", "--version", "--wizard", "--completions", "--log-level"]

/** The options a command takes, as its usage names them. */
const optionNames = (usage: Usage.Usage): ReadonlyArray<string> => {
  switch (usage._tag) {
    case "Named":
      return usage.names.filter((n) => n.startsWith("-"))
    case "Optional":
    case "Repeated":
      return optionNames(usage.usage)
    case "Alternation":
    case "Concat":
      return [...optionNames(usage.left), ...optionNames(usage.right)]
    default:
      return []
  }
}

const words = (path: ReadonlyArray<CommandNode>) => path.map((n) => n.name).join(" ")

/** The commands named at the start of `args`, down the tree; an unknown one is a usage error with a suggestion. */
const locate = (root: CommandNode, args: ReadonlyArray<string>) => {
  const path = [root]
  let i = 0
  for (let node = root; i < args.length && node.children.length > 0 && !args[i]!.startsWith("-"); i++) {
    const word = args[i]!
    const child = node.children.find((c) => c.name === word)
    if (child === undefined) {
      const names = node.children.map((c) => c.name)
      const near = closest(word, names)
      return Effect.fail(
        new UsageError({
          message: `unknown command "${word}"${near === undefined ? "" : `; did you mean "${words(path)} ${near}"?`} ` +
            `The commands of ${words(path)} are ${names.join(", ")}; \`${words(path)} --help\` describes them`
        })
      )
    }
    path.push(child)
    node = child
  }
  return Effect.succeed({ path, rest: args.slice(i) })
}

/** The first option the command does not know, with the one that was probably meant. */
const unknownOption = (node: CommandNode, rest: ReadonlyArray<string>) => {
  const known = [...optionNames(CommandDescriptor.getUsage(node.descriptor)), ...BUILT_IN]
  const flag = rest.map((arg) => arg.split("=")[0]!).find((arg) => /^--?[A-Za-z]/.test(arg) && !known.includes(arg))
  if (flag === undefined) return undefined
  const near = closest(flag, known.filter((n) => n.startsWith("--")))
  return `unknown option ${flag}${near === undefined ? "" : ` (did you mean ${near}?)`}`
}

const usageError = (path: ReadonlyArray<CommandNode>, what: string) =>
  new UsageError({ message: `${what}; see \`${words(path)} --help\`` })

/**
 * Reads the command line before anything runs: `--help` (and a group such as `shopsync` or `shopsync simulate` without
 * a command) is help; a mistake fails with a UsageError saying what is wrong (with a "did you mean" for a near miss);
 * anything else is a run, which @effect/cli then parses again (the same parse, so it cannot fail differently).
 */
export const planCommandLine = (
  cli: CommandDescriptor.Command<unknown>,
  args: ReadonlyArray<string>,
  /** Whether standard input is a terminal: `--wizard` asks its questions there, and would wait forever on a pipe. */
  interactive: boolean
): Effect.Effect<Plan, UsageError, CliApp.CliApp.Environment> =>
  Effect.gen(function*() {
    const root = commandTree(cli)
    const asked = args[0] === "help" ? [...args.slice(1), "--help"] : args
    const { path, rest } = yield* locate(root, asked)
    const node = path[path.length - 1]!
    if (rest.includes("--help") || rest.includes("-h") || (node.children.length > 0 && rest.length === 0)) {
      return { _tag: "Help", path } as const
    }
    if (rest.includes("--wizard") && !interactive) {
      return yield* usageError(path, "--wizard asks its questions on a terminal, and standard input is not one: give the options on the command line")
    }
    const directive = yield* CommandDescriptor.parse(cli, [root.name, ...asked], CliConfig.defaultConfig).pipe(
      Effect.mapError((e: ValidationError.ValidationError) => usageError(path, unknownOption(node, rest) ?? docText(e.error)))
    )
    if (CommandDirective.isUserDefined(directive) && directive.leftover.length > 0) {
      const [first] = directive.leftover
      // A known option left over is one whose value is missing (it came last).
      const known = first !== undefined && optionNames(CommandDescriptor.getUsage(node.descriptor)).includes(first)
      return yield* usageError(path, unknownOption(node, directive.leftover) ?? (known ? `${first} needs a value` : `unexpected argument "${first}"`))
    }
    return { _tag: "Run", command: path[1]?.name ?? asked.find((a) => root.children.some((c) => c.name === a)) } as const
  })
