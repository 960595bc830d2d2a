import type {FlagSpec, FlagSpecs, FlagValues} from './flag-spec.js'

export interface FastArgv<S extends FlagSpecs> {
  words: string[]
  flags: FlagValues<S>
}

/**
 * Reads a command's arguments for the fast path (src/fast.ts), giving the same words and flags
 * oclif's parser gives, for a deliberately small grammar: `--name`, `--name=value`, `-c`,
 * `-c value`, repeated `multiple` flags, integers written as /^-?\d+$/, and plain words. It
 * returns undefined for everything else (`--`, help and version flags, unknown or combined
 * flags, a flag given twice, a missing value or one starting with "-", a bad integer, a value
 * not among a flag's options, a required flag left out, flags that exclude each other, any word
 * starting with "-", words for a command that takes none), and the full oclif run then answers, with its own errors and help.
 *
 * A `multiple` flag takes one value per use (`--tag a --tag b`), as oclif does with
 * `multipleNonGreedy` (src/cli/oclif-flags.ts): the word after its value is a plain word.
 */
export function parseFastArgv<S extends FlagSpecs>(
  specs: S,
  args: readonly string[],
  takesWords = true,
): FastArgv<S> | undefined {
  const flags: Record<string, boolean | number | string | string[]> = {}
  const words: string[] = []
  const rest = [...args]
  for (let arg = rest.shift(); arg !== undefined; arg = rest.shift()) {
    if (!arg.startsWith('-')) {
      words.push(arg)
      continue
    }
    const named = flagOf(specs, arg)
    if (!named) return undefined
    const {name, spec, inline} = named
    if (Object.hasOwn(flags, name) && !spec.multiple) return undefined
    if (spec.kind === 'boolean') {
      if (inline !== undefined) return undefined
      flags[name] = true
      continue
    }
    const value = inline ?? rest.shift()
    if (value === undefined || value.startsWith('-')) return undefined
    if (spec.kind === 'integer') {
      if (!/^-?\d+$/.test(value)) return undefined
      flags[name] = Number.parseInt(value, 10)
    } else if (spec.options && !spec.options.includes(value)) {
      return undefined
    } else if (spec.multiple) {
      const values = (flags[name] as string[] | undefined) ?? []
      values.push(value)
      flags[name] = values
    } else {
      flags[name] = value
    }
  }
  if (!takesWords && words.length > 0) return undefined
  for (const [name, spec] of Object.entries(specs)) {
    if (spec.required && !Object.hasOwn(flags, name)) return undefined
    if (Object.hasOwn(flags, name) && spec.exclusive?.some((other) => Object.hasOwn(flags, other))) return undefined
  }
  for (const [name, spec] of Object.entries(specs))
    if (!Object.hasOwn(flags, name) && spec.default !== undefined) flags[name] = spec.default
  return {words, flags: flags as FlagValues<S>}
}

/** The flag an argument names, with its `=value` if any; undefined for anything not in the small grammar. */
function flagOf(specs: FlagSpecs, arg: string): {name: string; spec: FlagSpec; inline?: string} | undefined {
  if (arg.startsWith('--')) {
    const equals = arg.indexOf('=')
    const name = equals === -1 ? arg.slice(2) : arg.slice(2, equals)
    const spec = Object.hasOwn(specs, name) ? specs[name] : undefined
    if (!spec) return undefined
    return equals === -1 ? {name, spec} : {name, spec, inline: arg.slice(equals + 1)}
  }
  const found = arg.length === 2 ? Object.entries(specs).find(([, spec]) => spec.char === arg[1]) : undefined
  return found && {name: found[0], spec: found[1]}
}
