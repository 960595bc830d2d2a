import {closeSync, existsSync, readFileSync, type Dirent} from 'node:fs'
import {basename, join} from 'node:path'

import {asMemError, type MemError} from '../errors.js'
import {backupPath, DurableJsonFile, writeFileDurably} from '../store/file/durable-file.js'
import {decodeFile, type Kind} from '../store/file/format.js'
import {
  applyJournal,
  JOURNAL_NAME,
  journalPath,
  openJournal,
  parseJournal,
  segmentOfJournal,
} from '../store/file/journal.js'
import {linkedDataFileFix, linkedDataFileProblem} from '../store/file/links.js'
import {agentOfDataFile} from '../store/file/paths.js'
import {FactRecord, type CheckpointRecord} from '../store/records.js'
import {COLLECTIONS, entries, type AgentCheck, type Finding} from './inspect.js'
import {
  keptChanges,
  planJournal,
  repairJournal,
  setAsideDanglingReplacements,
  type JournalPlan,
  type JournalTarget,
} from './journal-repair.js'

export function isJournal(name: string): boolean {
  return JOURNAL_NAME.test(name)
}

/**
 * Every journal of facts/ and checkpoints/, decoded as the store decodes it (modes are checked
 * with the other files). A journal some of whose lines cannot be applied is repaired by keeping
 * the others (src/doctor/journal-repair.ts). Facts are looked at together: a mark in one
 * segment's journal may name as a fact's replacement a fact added in another's.
 */
export const journalCheck: AgentCheck = ({dir, agent}) =>
  COLLECTIONS.flatMap(({folder, kind, record}) => {
    const examined = entries(join(dir, folder))
      .filter((entry) => isJournal(entry.name))
      .sort((x, y) => (x.name < y.name ? -1 : 1))
      .map((entry) => examineJournal(join(dir, folder, entry.name), entry, agent, kind, record))
    const plans = examined.filter((e): e is Planned => 'plan' in e)
    if (kind === 'mem.facts' && plans.some((p) => p.plan.keep.some((k) => k.replacedBy))) {
      const stored = storedFacts(join(dir, folder), examined)
      if (stored) for (const {plan} of plans) setAsideDanglingReplacements(plan, stored)
    }
    return examined.flatMap((e) => ('plan' in e ? planFindings(e.plan, agent) : e.findings))
  })

type Record_ = typeof FactRecord | typeof CheckpointRecord

interface Planned {
  plan: JournalPlan
  /** Ids of the records the JSON file beside it holds. */
  fileIds: string[]
}

type Examined = Planned | {findings: Finding[]; unknown?: boolean}

/**
 * A segment's journal (`NNNNNN.jsonl`, src/store/file/journal.ts) is a data file like its JSON file:
 * a link is refused, and every whole line must be a change the store can apply. A tail without
 * its newline is a write that was never acknowledged; the store leaves it out, so it is no
 * problem (a note says so, see journalNotes).
 */
function examineJournal(path: string, entry: Dirent, agent: string, kind: Kind, record: Record_): Examined {
  if (entry.isSymbolicLink())
    return {
      findings: [
        {kind: 'link', path, agent, problem: linkedDataFileProblem(), fix: linkedDataFileFix(path), fixed: false},
      ],
      unknown: true,
    }
  const segment = segmentOfJournal(basename(path))
  const segmentPath = path.slice(0, -'l'.length)
  if (!existsSync(segmentPath))
    return {
      findings: [
        {
          kind: 'corrupt_file',
          path,
          agent,
          problem: `it holds changes to ${segment}, which is not beside it, so mem does not read it`,
          fix: `put ${segment} back beside it, or move the journal out of the folder to give up its changes`,
          fixed: false,
        },
      ],
    }
  const target = {kind, agent: agentOfDataFile(segmentPath) ?? agent, segment}
  let bytes: Buffer
  try {
    bytes = readJournalBytes(path)
  } catch (error) {
    return {findings: [unreadable(path, agent, asMemError(error))], unknown: true}
  }
  const records = segmentRecords(segmentPath, kind, record)
  if (records === undefined) return {findings: damageBeforeFileIsRead(path, bytes, target, agent), unknown: true}
  try {
    return {plan: planJournal(path, bytes, target, records, record as never), fileIds: records.map((r) => r.id)}
  } catch (error) {
    return {findings: [unreadable(path, agent, asMemError(error))], unknown: true}
  }
}

export function readJournalBytes(path: string): Buffer {
  const fd = openJournal(path)
  if (fd === undefined) return Buffer.alloc(0)
  try {
    return readFileSync(fd)
  } finally {
    closeSync(fd)
  }
}

/** The records of a segment's JSON file, or undefined when it does not decode (it is reported on its own). */
function segmentRecords(path: string, kind: Kind, record: Record_): {id: string}[] | undefined {
  try {
    const raw = new DurableJsonFile(path).read()
    return raw === null ? [] : (decodeFile(path, kind, record as never, raw).records as {id: string}[])
  } catch {
    return undefined
  }
}

/**
 * A journal whose JSON file does not decode: which fact each mark is about cannot be told, so no
 * line is set aside yet. Damage the lines show on their own is still reported.
 */
function damageBeforeFileIsRead(path: string, bytes: Buffer, target: JournalTarget, agent: string): Finding[] {
  try {
    applyJournal(path, [], parseJournal(path, bytes, target).ops, recordOf(target.kind) as never)
    return []
  } catch (error) {
    const e = asMemError(error)
    if (e.code !== 'corrupt_file') return [unreadable(path, agent, e)]
    return [
      {
        kind: 'corrupt_file',
        path,
        agent,
        problem: e.message,
        fix: `first repair ${target.segment} beside it (see its own entry); then run "mem doctor --fix" again to keep the lines of this journal that apply and set the others aside`,
        fixed: false,
      },
    ]
  }
}

function recordOf(kind: Kind): Record_ {
  return COLLECTIONS.find((c) => c.kind === kind)!.record
}

/** A journal this mem cannot repair: one of a newer mem, one that belongs elsewhere, one that cannot be read. */
function unreadable(path: string, agent: string, e: MemError): Finding {
  const fix =
    e.code === 'unsupported_version'
      ? 'upgrade mem; the file is never changed by this version'
      : e.code === 'corrupt_file'
        ? "it is not this segment's journal, so --fix leaves it: move it out of the folder to give up its changes, or put it back where it belongs"
        : 'it could not be read, so --fix leaves it: put right what the problem names, then run "mem doctor" again'
  return {
    kind: e.code === 'unsupported_version' ? 'unsupported_version' : 'corrupt_file',
    path,
    agent,
    problem: e.message,
    fix,
    fixed: false,
  }
}

/**
 * Every fact the agent's segments hold once the lines set aside are gone: the JSON files' records
 * and the adds kept in their journals. Undefined when that cannot be told (a segment or a journal
 * that does not read), so no mark is judged by it.
 */
function storedFacts(folder: string, examined: Examined[]): Set<string> | undefined {
  if (examined.some((e) => 'unknown' in e && e.unknown)) return undefined
  const stored = new Set<string>()
  for (const e of examined) if ('plan' in e) for (const id of [...e.fileIds, ...e.plan.added]) stored.add(id)
  const journaled = new Set(examined.flatMap((e) => ('plan' in e ? [e.plan.path.slice(0, -'l'.length)] : [])))
  for (const entry of entries(folder)) {
    const path = join(folder, entry.name)
    if (!SEGMENT_FILE.test(entry.name) || journaled.has(path)) continue
    if (!entry.isFile()) return undefined
    const records = segmentRecords(path, 'mem.facts', FactRecord)
    if (records === undefined) return undefined
    for (const r of records) stored.add(r.id)
  }
  return stored
}

const SEGMENT_FILE = /^\d{6}\.json$/

/** The finding for a journal with lines to set aside (or a header to write), and its repair. */
function planFindings(plan: JournalPlan, agent: string): Finding[] {
  if (plan.aside.length === 0 && !plan.newHeader) return []
  const kept = keptChanges(plan)
  const lines = plan.aside.map((a) => a.line)
  const refusedWhys = plan.aside.filter((a) => a.refused).map((a) => a.why)
  if (plan.newHeader && plan.aside[0]?.line !== 1) refusedWhys.unshift('its first line is not a mem journal header')
  const dependent = listed(plan.aside.filter((a) => !a.refused).map((a) => a.why))
  // Lines that cannot be applied make every operation refuse the journal; a line that depends on one set aside only goes with it.
  const problem =
    refusedWhys.length === 0
      ? dependent
      : `${plan.path} cannot be used: ${listed(refusedWhys)}.${dependent === '' ? '' : ` With them go the lines that depend on them: ${dependent}.`} It was left untouched.`
  const what = `keep ${plural(kept, 'change')} that ${kept === 1 ? 'applies' : 'apply'}${plan.newHeader ? ' under a new header line' : ''}`
  const aside = setAsideWords(plan)
  return [
    {
      kind: 'corrupt_file',
      path: plan.path,
      agent,
      problem,
      fix: aside === '' ? what : `${what}, and set aside ${aside} in a new file beside it (nothing is deleted)`,
      fixed: false,
      repair: () => {
        const file = repairJournal(plan)
        const done = `kept ${plural(kept, 'change')}${plan.newHeader ? ' under a new header line' : ''}`
        return {
          fix:
            file === undefined
              ? done
              : `${done} and set aside ${aside} in ${file}; mem never reads that file (docs/reliability.md says how to take a line back)`,
          set_aside: {kept, lines, ...(file === undefined ? {} : {file})},
        }
      },
    },
  ]
}

/** Reasons, one after another; past four, how many more. */
function listed(whys: string[]): string {
  return (whys.length > 4 ? [...whys.slice(0, 4), `and ${whys.length - 4} more`] : whys).join('; ')
}

function setAsideWords(plan: JournalPlan): string {
  const torn = plan.torn.length > 0 ? 'its unfinished last line' : ''
  if (plan.aside.length === 0) return torn
  const list = plan.aside.map((a) => a.line)
  const lines = `${plural(list.length, 'line')} (${list.length === 1 ? 'line' : 'lines'} ${list.join(', ')})`
  return torn === '' ? lines : `${lines} and ${torn}`
}

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`
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
