import * as v from 'valibot'

import {MemError} from '../../errors.js'
import {corruptFile} from './durable-file.js'
import {describeIssue} from '../describe-issue.js'
import {agentOfDataFile} from './paths.js'

/**
 * Every data file is an envelope `{format, version, agent, records}`. The version is the file
 * format's, not the package's: it changes only when the bytes on disk change meaning.
 *
 * - version 1: `{format, version, records}`.
 * - version 2: adds `agent`, the id of the agent the file belongs to. A file copied into
 *   another agent's folder (by hand, by a sync tool, from a backup) is then refused instead
 *   of silently mixing two agents' memories.
 * - version 3: the records are as in version 2, but the file may have a journal beside it
 *   (`NNNNNN.jsonl`, src/store/file/journal.ts) whose changes come after them. A mem that knows
 *   only version 2 would miss those changes, so it must refuse the file rather than read it.
 *   A version 2 file needs no rewriting: it is written as version 3 the first time it changes.
 */
export const FORMAT_VERSION = 3

/** Files from this version on hold records in the current shape: reading them needs no rewrite. */
const SAME_RECORDS_FROM = 2

export type Kind = 'mem.facts' | 'mem.checkpoints'

/** What a migration may need besides the file itself. */
interface Context {
  /** The agent whose folder holds the file. */
  agent: string | undefined
}

type Envelope = Record<string, unknown> & {version: number}

/** Upgrades from older versions, keyed by the version they upgrade from; each returns the next version. */
const migrations: Record<number, (file: Envelope, context: Context) => Envelope> = {
  1: (file, {agent}) => {
    if (agent === undefined)
      throw new Error('the folder holding it is not an agent folder, so the agent it belongs to is unknown')
    return {...file, version: 2, agent}
  },
  2: (file) => ({...file, version: 3}),
}

const Versioned = v.looseObject({
  format: v.string(),
  version: v.pipe(v.number(), v.integer(), v.minValue(1)),
})

const Current = v.object({
  format: v.string(),
  version: v.literal(FORMAT_VERSION),
  agent: v.string(),
  records: v.array(v.unknown()),
})

export interface Decoded<T> {
  records: T[]
  /** The version found on disk, before any upgrade. */
  version: number
  /** True when the file's records were upgraded: a writer holding the lock rewrites it (the old bytes are kept). */
  migrated: boolean
}

/**
 * Checks and upgrades one parsed data file. `path` names the file in errors and tells which
 * agent's folder it lies in. Throws `corrupt_file` for anything that is not a whole, valid
 * file of this kind and agent, `unsupported_version` for a newer format.
 */
export function decodeFile<T>(path: string, kind: Kind, record: v.GenericSchema<unknown, T>, raw: unknown): Decoded<T> {
  const versioned = v.safeParse(Versioned, raw)
  if (!versioned.success) throw corruptFile(path, `it is not a mem data file (${describeIssue(versioned.issues[0])})`)
  const {format, version} = versioned.output
  if (format !== kind) throw corruptFile(path, `it holds "${format}" data where "${kind}" was expected`)
  if (version > FORMAT_VERSION) {
    throw new MemError(
      'unsupported_version',
      `${path} was written by a newer mem (format version ${version}; this mem reads up to ${FORMAT_VERSION}). Upgrade mem to use it; the file was left untouched.`,
    )
  }
  const context: Context = {agent: agentOfDataFile(path)}
  let file: Envelope = versioned.output
  for (let from = version; from < FORMAT_VERSION; from++) {
    const step = migrations[from]
    if (!step) throw corruptFile(path, `no upgrade is known from format version ${from}`)
    try {
      file = step(file, context)
    } catch (error) {
      throw corruptFile(path, `it cannot be upgraded from format version ${from}: ${(error as Error).message}`)
    }
  }
  const current = v.safeParse(Current, file)
  if (!current.success) throw corruptFile(path, `it is not a mem data file (${describeIssue(current.issues[0])})`)
  if (context.agent !== undefined && current.output.agent !== context.agent) {
    throw corruptFile(
      path,
      `it belongs to agent "${current.output.agent}" but lies in the folder of agent "${context.agent}" (copied from another agent's folder?)`,
    )
  }
  const parsed = v.safeParse(v.array(record), current.output.records)
  if (!parsed.success) throw corruptFile(path, `a record does not decode (${describeIssue(parsed.issues[0])})`)
  return {records: parsed.output, version, migrated: version < SAME_RECORDS_FROM}
}

/** The current envelope for records written to `path`. */
export function encodeFile(kind: Kind, records: unknown[], path: string): unknown {
  const agent = agentOfDataFile(path)
  if (agent === undefined) throw new MemError('internal', `${path} is not inside an agent folder`)
  return {format: kind, version: FORMAT_VERSION, agent, records}
}

/** Where the bytes of a file are kept, unchanged, before it is upgraded from `version`. */
export function preMigrationPath(path: string, version: number): string {
  return `${path}.v${version}.bak`
}
