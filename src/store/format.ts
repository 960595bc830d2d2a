import * as v from 'valibot'

import {MemError} from '../errors.js'
import {corruptFile} from './durable-file.js'

/**
 * Every data file is an envelope `{format, version, records}`. The version is the file
 * format's, not the package's: it changes only when the bytes on disk change meaning.
 */
export const FORMAT_VERSION = 1

export type Kind = 'mem.facts' | 'mem.checkpoints'

/** Upgrades from older versions, keyed by the version they upgrade from. */
const migrations: Record<number, (file: {records: unknown[]}) => {records: unknown[]}> = {}

const Envelope = v.object({
  format: v.string(),
  version: v.pipe(v.number(), v.integer(), v.minValue(1)),
  records: v.array(v.unknown()),
})

export interface Decoded<T> {
  records: T[]
  /** True when the file was an older version: the caller rewrites it (a backup is kept). */
  migrated: boolean
}

export function decodeFile<T>(path: string, kind: Kind, record: v.GenericSchema<unknown, T>, raw: unknown): Decoded<T> {
  const envelope = v.safeParse(Envelope, raw)
  if (!envelope.success) throw corruptFile(path, `it is not a mem data file (${describeIssue(envelope.issues[0])})`)
  const {format, version} = envelope.output
  if (format !== kind) throw corruptFile(path, `it holds "${format}" data where "${kind}" was expected`)
  if (version > FORMAT_VERSION) {
    throw new MemError(
      'unsupported_version',
      `${path} was written by a newer mem (format version ${version}; this mem reads up to ${FORMAT_VERSION}). Upgrade mem to use it; the file was left untouched.`,
    )
  }
  let records = envelope.output.records
  for (let from = version; from < FORMAT_VERSION; from++) {
    const step = migrations[from]
    if (!step) throw corruptFile(path, `no upgrade is known from format version ${from}`)
    records = step({records}).records
  }
  const parsed = v.safeParse(v.array(record), records)
  if (!parsed.success) throw corruptFile(path, `a record does not decode (${describeIssue(parsed.issues[0])})`)
  return {records: parsed.output, migrated: version < FORMAT_VERSION}
}

export function encodeFile(kind: Kind, records: unknown[]): unknown {
  return {format: kind, version: FORMAT_VERSION, records}
}

export function describeIssue(issue: v.BaseIssue<unknown> | undefined): string {
  if (!issue) return 'unknown problem'
  const where = v.getDotPath(issue)
  return where ? `${where}: ${issue.message}` : issue.message
}
