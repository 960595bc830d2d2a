import {existsSync} from 'node:fs'

import * as v from 'valibot'

import {asMemError} from '../errors.js'
import {defineOperation} from '../ops/operation.js'
import {withLock} from '../store/file/lock.js'
import {agentFolders, inspectAgent, inspectHome, type AgentFolder, type Finding} from './inspect.js'
import {journalNotes} from './notes.js'
import {DoctorReport, Problem, prose, type Note} from './report.js'

export const DoctorInput = v.strictObject({
  fix: v.optional(v.boolean(), false),
})

/** What `mem doctor` works on: the files of a home folder, as they are on disk, not the store's view of them. */
export interface HomeContext {
  home: string
}

/**
 * `mem doctor`: checks every data file the way the store reads it, and with `fix` repairs
 * what can be repaired safely, each agent's folder under that agent's lock. CLI only: it
 * works on the whole home, not on one agent's memory, so it is not an MCP tool.
 */
export const doctor = defineOperation({
  tool: 'doctor',
  title: 'Check the data files',
  description: 'Checks every data file of the home folder; with fix, repairs what can be repaired safely.',
  annotations: {readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false},
  input: DoctorInput,
  output: DoctorReport,
  prose,
  unfinished: (report) => !report.ok,
  async handler({home}: HomeContext, input): Promise<DoctorReport> {
    if (!existsSync(home))
      return {home, ok: true, fix: input.fix, checked: {agents: 0, files: 0}, problems: [], exists: false}
    const problems: Problem[] = []
    const notes: Note[] = []
    const homeFindings = inspectHome(home)
    problems.push(...(input.fix ? homeFindings.map(applyRepair) : homeFindings))
    const folders = agentFolders(home)
    let files = 0
    for (const folder of folders) {
      const {findings, files: n} = inspectAgent(folder, {locked: false})
      files += n
      problems.push(...(input.fix && findings.length > 0 ? await repairAgent(folder, findings) : findings))
      // Looked for after the repairs: a repair sets lines aside, and a journal it rewrote has no unfinished line left.
      notes.push(...journalNotes(folder.dir, folder.agent))
    }
    return {
      home,
      ok: problems.every((p) => p.fixed),
      fix: input.fix,
      checked: {agents: folders.length, files},
      problems: problems.map(plain),
      notes,
    }
  },
})

/**
 * Repairs first what keeps the lock from being taken (the folder's own mode, a lock file that is
 * not a regular file, an older mem's lock folders), then looks again while holding the lock
 * (things may have changed) and repairs what is found there.
 */
async function repairAgent(folder: AgentFolder, before: Finding[]): Promise<Problem[]> {
  const outside = before.filter((f) => f.beforeLock).map(applyRepair)
  const rest = before.filter((f) => !f.beforeLock)
  if (rest.length === 0) return outside
  try {
    return [
      ...outside,
      ...(await withLock(folder.dir, () =>
        inspectAgent(folder, {locked: true})
          .findings.filter((f) => !f.beforeLock)
          .map(applyRepair),
      )),
    ]
  } catch (error) {
    const e = asMemError(error)
    const problem =
      e.code === 'lock_timeout'
        ? {
            kind: 'busy' as const,
            problem: `the folder could not be repaired: ${e.message}`,
            fix: 'try again when no mem process is writing to it',
          }
        : {
            kind: 'bad_lock' as const,
            problem: `the folder could not be locked for repair: ${e.message}`,
            fix: 'make the agent folder and its write.lock writable by you, then run "mem doctor --fix" again',
          }
    return [...outside, ...rest, {...problem, path: folder.dir, agent: folder.agent, fixed: false}]
  }
}

function applyRepair(finding: Finding): Finding {
  if (!finding.repair) return finding
  try {
    const done = finding.repair()
    // The store's message tells what to do about the file; once repaired, only what was wrong is left to say.
    const problem = finding.problem.replace(/ It was left untouched\..*$/s, '')
    return {...finding, problem, fixed: true, ...(typeof done === 'string' ? {fix: done} : (done ?? {}))}
  } catch (error) {
    return {...finding, fix: `${finding.fix} (failed: ${asMemError(error).message})`}
  }
}

/** The report holds what was found, not how to repair it. */
function plain(finding: Finding): Problem {
  return v.parse(Problem, finding)
}
