import type {AnyOperation} from '../ops/operation.js'
import type {FieldWords} from './cli-words.js'

/**
 * A command's flags as plain data, so the oclif command and the fast path (src/fast.ts) read
 * the same definition and neither has to import the other's machinery.
 */
export interface FlagSpec {
  readonly kind: 'boolean' | 'string' | 'integer'
  readonly char?: string
  /** Only for string flags: the flag may be repeated and its values collect in an array. */
  readonly multiple?: boolean
  readonly default?: number | string
  readonly description: string
  readonly helpValue?: string
  readonly helpGroup?: string
  /** The operation input field(s) the flag fills, when not its own name with dashes as underscores; errors name the flag instead. */
  readonly field?: string | readonly string[]
  /** Only for string flags: the values allowed (oclif checks them and lists them in help). */
  readonly options?: readonly string[]
  readonly required?: boolean
  /** Flags that cannot be given with this one. */
  readonly exclusive?: readonly string[]
}

export type FlagSpecs = Readonly<Record<string, FlagSpec>>

export type ValueOf<F extends FlagSpec> = F['kind'] extends 'boolean'
  ? boolean
  : F['kind'] extends 'integer'
    ? number
    : F['multiple'] extends true
      ? string[]
      : string

/** Parsed flag values: a flag that was not given and has no default is absent. */
export type FlagValues<S extends FlagSpecs> = {[K in keyof S]?: ValueOf<S[K]>}

/** The switch every mem command has (MemCommand.baseFlags). */
export const jsonFlag = {
  json: {
    kind: 'boolean',
    description: 'Print the result as JSON: the same payload an MCP client gets as structuredContent.',
    helpGroup: 'GLOBAL',
  },
} as const satisfies FlagSpecs

/** `--agent`, defined once: every command that takes an agent spells it this way (`agentFlagFor` words it for one command). */
export const agentFlag = {
  agent: {
    kind: 'string',
    char: 'a',
    description: 'Agent whose memory to use [default: $MEM_AGENT, else "default"].',
    helpValue: 'ID',
    field: 'agent_id',
  },
} as const satisfies FlagSpecs

type AgentFlag = (typeof agentFlag)['agent']

/**
 * `--agent` as one command means it ("the agent the server uses when a call names none"), with
 * anything more it needs there (`exclusive`, or `multiple` for a list of patterns); name, letter,
 * value and the field it fills stay those of `agentFlag`.
 */
export function agentFlagFor<const M extends Partial<FlagSpec> = Record<never, never>>(
  description: string,
  more?: M,
): {agent: Omit<AgentFlag, 'description' | keyof M> & {description: string} & M} {
  return {
    agent: {...agentFlag.agent, description, ...more} as Omit<AgentFlag, 'description' | keyof M> & {
      description: string
    } & M,
  }
}

/** The filters `mem search` and `mem list` share: facts with every tag given, saved before a time. */
export const factFilterFlags = {
  tag: {
    kind: 'string',
    char: 't',
    description: 'Only facts with this tag (repeat for several; all must match).',
    multiple: true,
    field: 'tags',
  },
  until: {kind: 'string', description: 'Only facts saved before this time (ISO date or phrase).', helpValue: 'WHEN'},
} as const satisfies FlagSpecs

/** `--dry-run`: work out and show what would change, change nothing. */
export function dryRunFlag(description: string) {
  return {'dry-run': {kind: 'boolean', description}} as const satisfies FlagSpecs
}

/**
 * A command that is one operation call: its flags, and how its words and flags become the
 * operation's input. `flags` holds the command's own flags; --json comes from `jsonFlag`.
 */
export interface CommandSpec<S extends FlagSpecs & typeof agentFlag = FlagSpecs & typeof agentFlag> {
  readonly operation: AnyOperation
  readonly flags: S
  /** Whether the command takes free words (oclif's `strict = false`); if not, any word is an error. */
  readonly words: boolean
  /** The input fields the words fill, and what to call them in an error ("the search words"). */
  readonly wordsFill?: FieldWords
  input(words: string[], flags: FlagValues<S>): Promise<Record<string, unknown>>
}

/** Keeps the literal flag types of a spec while checking its shape. */
export function defineCommandSpec<S extends FlagSpecs & typeof agentFlag>(spec: CommandSpec<S>): CommandSpec<S> {
  return spec
}
