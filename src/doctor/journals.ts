import {closeSync, existsSync, readFileSync, type Dirent} from 'node:fs'
import {join} from 'node:path'
import {basename} from 'node:path'

import {asMemError} from '../errors.js'
import {backupPath, DurableJsonFile, writeFileDurably} from '../store/durable-file.js'
import {decodeFile, type Kind} from '../store/format.js'
import {applyJournal, JOURNAL_NAME, journalPath, openJournal, readJournal, segmentOfJournal} from '../store/journal.js'
import {linkedDataFileFix, linkedDataFileProblem} from '../store/links.js'
import {agentOfDataFile} from '../store/paths.js'
import type {CheckpointRecord, FactRecord} from '../store/records.js'
import {COLLECTIONS, entries, type AgentCheck, type Finding} from './inspect.js'

export function isJournal(name: string): boolean {
  return JOURNAL_NAME.test(name)
}

/** Every journal of facts/ and checkpoints/, decoded as the store decodes it (modes are checked with the other files). */
export const journalCheck: AgentCheck = ({dir, agent}) =>
  COLLECTIONS.flatMap(({folder, kind, record}) =>
    entries(join(dir, folder))
      .filter((entry) => isJournal(entry.name))
      .flatMap((entry) => journalFindings(join(dir, folder, entry.name), entry, agent, kind, record)),
  )

/**
 * A segment's journal (`NNNNNN.jsonl`, src/store/journal.ts) is a data file like its JSON file:
 * a link is refused, and every whole line must be a change the store can apply. A tail without
 * its newline is a write that was never acknowledged; the store ignores it, so it is no problem.
 * There is no backup of a journal to restore, so a damaged one is only reported.
 */
export function journalFindings(
  path: string,
  entry: Dirent,
  agent: string,
  kind: Kind,
  record: typeof FactRecord | typeof CheckpointRecord,
): Finding[] {
  if (entry.isSymbolicLink())
    return [{kind: 'link', path, agent, problem: linkedDataFileProblem(), fix: linkedDataFileFix(path), fixed: false}]
  const segment = segmentOfJournal(basename(path))
  const segmentPath = path.slice(0, -'l'.length)
  if (!existsSync(segmentPath))
    return [
      {
        kind: 'corrupt_file',
        path,
        agent,
        problem: `it holds changes to ${segment}, which is not beside it, so mem does not read it`,
        fix: `put ${segment} back beside it, or move the journal out of the folder to give up its changes`,
        fixed: false,
      },
    ]
  let fd: number | undefined
  try {
    fd = openJournal(path)
    if (fd === undefined) return []
    const changes = readJournal(fd, path, {kind, agent: agentOfDataFile(segmentPath), segment})
    let records: {id: string}[] = []
    try {
      const raw = new DurableJsonFile(segmentPath).read()
      records = raw === null ? [] : (decodeFile(segmentPath, kind, record as never, raw).records as {id: string}[])
    } catch {
      // The JSON file is reported on its own; its journal's lines are still checked one by one.
    }
    applyJournal(path, records, changes.ops, record as never)
    return []
  } catch (error) {
    const e = asMemError(error)
    return [
      {
        kind: e.code === 'unsupported_version' ? 'unsupported_version' : 'corrupt_file',
        path,
        agent,
        problem: e.message,
        fix:
          e.code === 'unsupported_version'
            ? 'upgrade mem; the file is never changed by this version'
            : 'no copy of a journal is kept; repair the line named by hand (each line is one change), or move the journal out of the folder to give up its changes',
        fixed: false,
      },
    ]
  } finally {
    if (fd !== undefined) closeSync(fd)
  }
}

/**
 * Before a segment's JSON file is replaced by its `.bak` (the version before its last whole
 * write), the journal that write folded in (`.jsonl.bak`) goes back in front of the current
 * journal's lines: the `.bak`, that journal and the changes since are the whole segment, and
 * replaying lines the file already holds changes nothing. Called under the agent's lock.
 */
export function restoreJournalBackup(segmentPath: string): void {
  const journal = journalPath(segmentPath)
  const folded = wholeLines(backupPath(journal))
  if (folded === undefined) return
  const since = wholeLines(journal)
  const changes = since === undefined ? '' : since.slice(since.indexOf('\n') + 1)
  writeFileDurably(journal, folded + changes, {durable: true, backup: false})
}

/** A journal's whole lines (a torn tail left out), or undefined when there is none. */
function wholeLines(path: string): string | undefined {
  let text: string
  try {
    text = readFileSync(path, 'utf8')
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined
    throw error
  }
  return text.slice(0, text.lastIndexOf('\n') + 1)
}
