import {chmodSync, lstatSync, readdirSync, readFileSync, rmdirSync, statSync, unlinkSync, type Dirent} from 'node:fs'
import {join} from 'node:path'

import {asMemError} from '../errors.js'
import {backupPath, DIR_MODE, DurableJsonFile, FILE_MODE, isTempFile} from '../store/file/durable-file.js'
import {decodeFile, type Kind} from '../store/file/format.js'
import {firstErrorOffset} from '../store/json-position.js'
import {isFolderEntry, isLink, linkedDataFileFix, linkedDataFileProblem} from '../store/file/links.js'
import {legacyLockPaths, lockPath} from '../store/file/lock.js'
import {agentsRoot, decodeAgentDir} from '../store/file/paths.js'
import {CheckpointRecord, FactRecord} from '../store/records.js'
import {revisionPath} from '../store/file/revision.js'
import {authFindings} from './auth.js'
import {isJournal, journalCheck, restoreJournalBackup} from './journals.js'
import {removeQuietly, restoreBackup} from './repair.js'
import type {Problem} from './report.js'
import {searchIndexCheck} from './search-index.js'
import {vectorsCheck} from './vectors.js'

export const COLLECTIONS: {folder: string; kind: Kind; record: typeof FactRecord | typeof CheckpointRecord}[] = [
  {folder: 'facts', kind: 'mem.facts', record: FactRecord},
  {folder: 'checkpoints', kind: 'mem.checkpoints', record: CheckpointRecord},
]
const SEGMENT_NAME = /^\d{6}\.json$/

/** A problem, with the repair --fix makes while holding the agent's lock (if one is safe). */
export interface Finding extends Problem {
  /** Returns, when it has one, what was done, in place of `fix` (which said what would be done), and what else the report should hold. */
  repair?: () => string | Pick<Problem, 'fix' | 'set_aside'> | void
  /** Repaired before taking the agent's lock: what stops the lock from being taken at all. */
  beforeLock?: boolean
}

export interface AgentFolder {
  agent: string
  dir: string
  /** The home the agent is in, for what applies to every agent (the meaning settings). */
  home: string
}

/** The agents the store lists: folders and links to folders (src/store/file/links.ts) with a name the store could have made. */
export function agentFolders(home: string): AgentFolder[] {
  const root = agentsRoot(home)
  return entries(root)
    .filter((e) => isFolderEntry(root, e))
    .flatMap((e) => {
      const agent = decodeAgentDir(e.name)
      return agent === undefined ? [] : [{agent, dir: join(root, e.name), home}]
    })
}

/** Links in agents/ named like an agent that lead to no folder: the store sees no agent there. */
function brokenAgentLinks(home: string): Finding[] {
  const root = agentsRoot(home)
  return entries(root)
    .filter((e) => e.isSymbolicLink() && !isFolderEntry(root, e))
    .flatMap((e) => {
      const agent = decodeAgentDir(e.name)
      if (agent === undefined) return []
      const path = join(root, e.name)
      return [
        {
          kind: 'link' as const,
          path,
          agent,
          problem: `the agent folder is a symbolic link that points to nothing or to no folder, so agent "${agent}" has no memory here`,
          fix: 'restore the folder it points to, or remove the link',
          fixed: false,
        },
      ]
    })
}

/** Where mem keeps data above the agent folders: private folders too. */
export function inspectHome(home: string): Finding[] {
  // MEM_HOME may name a folder mem did not make (even a shared one): its mode is reported, never changed.
  const homeFindings = modeProblem(home, DIR_MODE, undefined).map(({repair: _repair, ...f}) => ({
    ...f,
    fix: `if the folder holds nothing but mem's data, run: chmod 700 ${JSON.stringify(home)}`,
  }))
  return [
    ...homeFindings,
    ...modeProblem(agentsRoot(home), DIR_MODE, undefined),
    ...brokenAgentLinks(home),
    ...authFindings(home),
  ]
}

/** Where a check looks: one agent's folder, and whether the caller holds that agent's lock. */
export interface CheckTarget extends AgentFolder {
  /** The caller holds the agent's lock, so every temp file is left over from a writer that died. */
  locked: boolean
}

/**
 * One check of an agent's folder: everything of one sort that is wrong there, each with the
 * repair --fix makes (if one is safe). A check only reads; `doctor --fix` runs the repairs.
 */
export type AgentCheck = (target: CheckTarget) => Finding[]

/**
 * The checks `mem doctor` runs on every agent's folder, in the order the report lists what
 * they find. A new check is a module exporting an AgentCheck, added here.
 */
export const AGENT_CHECKS: readonly AgentCheck[] = [
  folderMode,
  ({dir, agent}) => lockProblems(dir, agent),
  ({dir, agent, locked}) => tempFiles(dir, agent, locked),
  dataFolders,
  journalCheck,
  ({dir, agent}) => modeProblem(revisionPath(dir), FILE_MODE, agent),
  ({dir, agent}) => inspectCache(dir, agent),
  searchIndexCheck,
  vectorsCheck,
]

/**
 * Everything wrong in one agent's folder, and how many data files it holds. With `locked`,
 * the caller holds the agent's lock, so every temp file is left over from a writer that died.
 */
export function inspectAgent(folder: AgentFolder, options: {locked: boolean}): {findings: Finding[]; files: number} {
  const target = {...folder, locked: options.locked}
  return {findings: AGENT_CHECKS.flatMap((check) => check(target)), files: countDataFiles(folder.dir)}
}

/** The agent folder's own mode: repaired before locking, since a folder mem cannot enter cannot be locked. */
function folderMode({dir, agent}: CheckTarget): Finding[] {
  return modeProblem(dir, DIR_MODE, agent).map((f) => ({...f, beforeLock: true}))
}

/** The segment files and journals of facts/ and checkpoints/, links among them included (the report counts them). */
function countDataFiles(dir: string): number {
  let files = 0
  for (const {folder} of COLLECTIONS)
    for (const entry of entries(join(dir, folder)))
      if (
        (SEGMENT_NAME.test(entry.name) || isJournal(entry.name)) &&
        (entry.isSymbolicLink() || (entry.isFile() && !isTempFile(entry.name)))
      )
        files++
  return files
}

/** facts/ and checkpoints/: their modes, temp files, and every segment decoded as the store decodes it. */
function dataFolders({dir, agent, locked}: CheckTarget): Finding[] {
  const findings: Finding[] = []
  for (const {folder: name, kind, record} of COLLECTIONS) {
    const folderPath = join(dir, name)
    findings.push(...modeProblem(folderPath, DIR_MODE, agent))
    findings.push(...tempFiles(folderPath, agent, locked))
    for (const entry of entries(folderPath)) {
      const path = join(folderPath, entry.name)
      if (entry.isSymbolicLink() && SEGMENT_NAME.test(entry.name)) {
        findings.push({
          kind: 'link',
          path,
          agent,
          problem: linkedDataFileProblem(),
          fix: linkedDataFileFix(path),
          fixed: false,
        })
        continue
      }
      if (!entry.isFile() || isTempFile(entry.name)) continue
      if (SEGMENT_NAME.test(entry.name)) {
        const problem = decodeProblem(path, kind, record)
        if (problem) findings.push(dataFileFinding(path, agent, kind, record, problem))
      }
      findings.push(...modeProblem(path, FILE_MODE, agent))
    }
  }
  return findings
}

/**
 * The lock file must be a regular file (mem opens it without following links), and the lock
 * folders of an older mem are debris no mem honours. Both are dealt with before locking.
 */
function lockProblems(dir: string, agent: string): Finding[] {
  const out: Finding[] = []
  const lock = lockPath(dir)
  const type = entryType(lock)
  if (type !== undefined && type !== 'file') {
    out.push({
      kind: 'bad_lock',
      path: lock,
      agent,
      problem: `the lock file is ${type === 'link' ? 'a symbolic link' : type === 'folder' ? 'a folder' : 'not a regular file'}; mem never follows or uses it, so no write to this agent can be made`,
      fix: `remove it (mem makes a new one)`,
      fixed: false,
      beforeLock: true,
      repair: () => removeEntry(lock, type),
    })
  }
  for (const path of legacyLockPaths(dir)) {
    const legacy = entryType(path)
    if (legacy === undefined) continue
    out.push({
      kind: 'stale_lock',
      path,
      agent,
      problem:
        'a lock left by an older version of mem, which locked with a folder; this version neither uses nor honours it',
      fix: 'remove it',
      fixed: false,
      beforeLock: true,
      repair: () => removeEntry(path, legacy),
    })
  }
  return out
}

type EntryType = 'file' | 'folder' | 'link' | 'other'

export function entryType(path: string): EntryType | undefined {
  try {
    const st = lstatSync(path)
    return st.isSymbolicLink() ? 'link' : st.isDirectory() ? 'folder' : st.isFile() ? 'file' : 'other'
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined
    throw error
  }
}

function removeEntry(path: string, type: EntryType): void {
  if (type === 'folder') rmdirSync(path)
  else unlinkSync(path)
}

/** The saved search index's folder: never a link, and no temporary files of searches that died. */
function inspectCache(dir: string, agent: string): Finding[] {
  const cache = join(dir, 'cache')
  if (isLink(cache)) {
    return [
      {
        kind: 'link',
        path: cache,
        agent,
        problem:
          'the search index folder is a symbolic link; searches neither read nor save the index through it (it would put a copy of every fact where the link points), so every cold search re-indexes',
        fix: 'remove the link (what it points to is left alone); the next search saves the index in a folder of its own',
        fixed: false,
        repair: () => removeQuietly(cache),
      },
    ]
  }
  // Searches save the index without the agent's lock, so even under it a live saver's file is left alone.
  return tempFiles(cache, agent, false, CACHE_TEMP)
}

/** Decodes a data file exactly as the store does; undefined when it is good. */
export function decodeProblem(
  path: string,
  kind: Kind,
  record: typeof FactRecord | typeof CheckpointRecord,
): {code: string; message: string} | undefined {
  try {
    const raw = new DurableJsonFile(path).read()
    if (raw === null) return undefined
    decodeFile(path, kind, record as never, raw)
    return undefined
  } catch (error) {
    const e = asMemError(error)
    return {code: e.code, message: e.message}
  }
}

function dataFileFinding(
  path: string,
  agent: string,
  kind: Kind,
  record: typeof FactRecord | typeof CheckpointRecord,
  problem: {code: string; message: string},
): Finding {
  if (problem.code === 'unsupported_version') {
    return {
      kind: 'unsupported_version',
      path,
      agent,
      problem: problem.message,
      fix: 'upgrade mem; the file is never changed by this version',
      fixed: false,
    }
  }
  const bak = backupPath(path)
  const bakProblem = decodeProblem(bak, kind, record)
  const bakGood = bakProblem === undefined && entryExists(bak)
  const handEdit = bakGood ? handEditOf(path) : undefined
  const finding: Finding = {
    kind: 'corrupt_file',
    path,
    agent,
    problem: problem.message,
    fix: bakGood
      ? `${handEdit ? handEditLost('discards', handEdit) : ''}restore the last good copy ${bak} (the change made by the last write to this file is lost) and keep the corrupt file aside as ${path}.corrupt-<time>`
      : `no good copy is kept (${entryExists(bak) ? `${bak} is damaged too` : `no ${bak}`}); repair the file by hand, or move it out of the folder to give up its records`,
    fixed: false,
  }
  if (bakGood)
    finding.repair = () => {
      restoreJournalBackup(path)
      return `${handEdit ? handEditLost('discarded', handEdit) : ''}restored the last good copy ${bak}; the corrupt file is kept aside as ${restoreBackup(path)}`
    }
  return finding
}

/** Said first, so the warning is read before the repair it comes with. */
function handEditLost(tense: 'discards' | 'discarded', why: string): string {
  return `this ${tense} a hand edit (${why}; copy your change back from the file kept aside): `
}

/**
 * Why a damaged data file looks changed after mem wrote it, by a person or another program,
 * rather than cut short by a write that went wrong; undefined when it does not. mem writes each
 * data file whole, as one line of JSON, so a failed write leaves a beginning of that line (or
 * zeros, or nothing). A file laid out over several lines, one that stops being JSON before its
 * end (a comma added in an editor), or whole JSON that is not mem's was edited.
 */
function handEditOf(path: string): string | undefined {
  let text: string
  try {
    text = readFileSync(path, 'utf8').trimEnd()
  } catch {
    return undefined
  }
  if (text === '' || text.includes('\u0000')) return undefined
  if (text.includes('\n')) return 'the file is laid out on several lines, which mem never writes'
  const offset = firstErrorOffset(text)
  if (offset === undefined) return 'the file is whole JSON, but not what mem writes there'
  if (offset >= text.length) return undefined
  return 'the file stops being JSON before its end, which a write cut short never leaves'
}

/**
 * `search-index.bin.<pid>.<hex>.tmp` and `duplicates.json.<pid>.<hex>.tmp`, as
 * src/store/file/cache-files.ts names what it is saving, and `vectors.bin.<pid>.<hex>.tmp`, as
 * src/meaning/vector-file.ts does.
 */
const CACHE_TEMP = /^(?:search-index\.(?:bin|json)|duplicates\.json|vectors\.bin)\.\d+\.[0-9a-f]+\.tmp$/

const LEFT_BY = {
  write: 'a temporary file left by a write that never finished (the data file it was meant to replace is intact)',
  search:
    'a temporary file left by a search that stopped while saving the search index (the index is rebuilt when needed)',
}

export function tempFiles(dir: string, agent: string | undefined, locked: boolean, cacheNames?: RegExp): Finding[] {
  const isTemp = (name: string): boolean => (cacheNames ? cacheNames.test(name) : isTempFile(name))
  return entries(dir)
    .filter((e) => e.isFile() && isTemp(e.name) && (locked || !writerAlive(e.name)))
    .map((e) => {
      const path = join(dir, e.name)
      return {
        kind: 'temp_file' as const,
        path,
        ...(agent === undefined ? {} : {agent}),
        problem: LEFT_BY[cacheNames ? 'search' : 'write'],
        fix: 'remove it',
        fixed: false,
        repair: () => removeQuietly(path),
      }
    })
}

/** Temp files are named `.<file>.<pid>.<random>.tmp`: a live pid on this host may still be writing it. */
function writerAlive(name: string): boolean {
  const pid = Number(name.split('.').at(-3))
  if (!Number.isInteger(pid) || pid <= 0) return false
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM'
  }
}

export function modeProblem(path: string, mode: number, agent: string | undefined): Finding[] {
  let actual: number
  try {
    actual = statSync(path).mode & 0o777
  } catch {
    return []
  }
  if (actual === mode) return []
  const what = mode === DIR_MODE ? 'folder' : 'file'
  return [
    {
      kind: 'permissions',
      path,
      ...(agent === undefined ? {} : {agent}),
      problem: `the ${what} has mode ${octal(actual)}; mem keeps its ${what}s private (${octal(mode)})`,
      fix: `set mode ${octal(mode)}`,
      fixed: false,
      repair: () => chmodSync(path, mode),
    },
  ]
}

function octal(mode: number): string {
  return `0${mode.toString(8).padStart(3, '0')}`
}

/** The folder's entries; none for a folder that is not there. */
export function entries(dir: string): Dirent[] {
  try {
    return readdirSync(dir, {withFileTypes: true})
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return []
    throw error
  }
}

function entryExists(path: string): boolean {
  try {
    statSync(path)
    return true
  } catch {
    return false
  }
}
