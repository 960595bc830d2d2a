import {Flags, type Interfaces} from '@oclif/core'

import type {FlagSpec, FlagSpecs, ValueOf} from './flag-spec.js'

type OclifFlagOf<F extends FlagSpec> = F['kind'] extends 'boolean'
  ? Interfaces.BooleanFlag<boolean>
  : Interfaces.OptionFlag<ValueOf<F> | undefined>

/** oclif's flag for a plain flag spec; only the keys the spec sets are passed on, so help and the manifest read as before. */
function oclifFlag(spec: FlagSpec): Interfaces.Flag<unknown> {
  const {kind, ...options} = spec
  // `field` is mem's own (which input field the flag fills), not oclif's.
  const defined = Object.fromEntries(
    Object.entries(options).filter(([key, value]) => value !== undefined && key !== 'field'),
  )
  if (kind === 'boolean') return Flags.boolean(defined)
  if (kind === 'integer') return Flags.integer(defined) as Interfaces.Flag<unknown>
  // One value per use: oclif would otherwise take every following word as another value, so
  // `mem add --tag ops Staging is read-only` would tag the fact "Staging", "is" and "read-only".
  return Flags.string(spec.multiple ? {...defined, multipleNonGreedy: true} : defined) as Interfaces.Flag<unknown>
}

/** oclif's `static flags` for a command whose flags are defined as plain data. */
export function oclifFlags<S extends FlagSpecs>(specs: S): {[K in keyof S]: OclifFlagOf<S[K]>} {
  return Object.fromEntries(Object.entries(specs).map(([name, spec]) => [name, oclifFlag(spec)])) as {
    [K in keyof S]: OclifFlagOf<S[K]>
  }
}

/**
 * The words a command was given, in the order given. oclif's `argv` sorts the words by where
 * each first appears on the command line, so a repeated word moves: `mem add the cat saw the
 * dog` would store "the the cat saw dog".
 */
export function wordsOf(raw: readonly {type: string; input: string}[]): string[] {
  return raw.flatMap((token) => (token.type === 'arg' ? [token.input] : []))
}
