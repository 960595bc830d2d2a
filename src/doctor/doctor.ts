import * as v from 'valibot'

import {asMemError} from '../errors.js'
import {withLock} from '../store/lock.js'
import {agentFolders, inspectAgent, inspectHome, type AgentFolder, type Finding} from './inspect.js'
import {DoctorReport, Problem, prose} from './report.js'

export const DoctorInput = v.strictObject({fix: v.boolean()})

/**
 * `mem doctor`: checks every data file the way the store reads it, and with `fix` repairs
 * what can be repaired safely, each agent's folder under that agent's lock. CLI only: it
 * works on the whole home, not on one agent's memory, so it is not an MCP tool.
 */
export const doctor = {
  input: DoctorInput,
  output: DoctorReport,
  prose,
  async handler(home: string, input: v.InferOutput<typeof DoctorInput>): Promise<DoctorReport> {
    const problems: Problem[] = []
    const homeFindings = inspectHome(home)
    problems.push(...(input.fix ? homeFindings.map(applyRepair) : homeFindings))
    const folders = agentFolders(home)
    let files = 0
    for (const folder of folders) {
      const {findings, files: n} = inspectAgent(folder, {locked: false})
      files += n
      problems.push(...(input.fix && findings.length > 0 ? await repairAgent(folder, findings) : findings))
    }
    return {home, ok: problems.every((p) => p.fixed), fix: input.fix, checked: {agents: folders.length, files}, problems: problems.map(plain)}
  },
}

/** Looks again while holding the lock (things may have changed), then repairs what was found. */
async function repairAgent(folder: AgentFolder, before: Finding[]): Promise<Problem[]> {
  try {
    return await withLock(folder.dir, () => {
      const under = inspectAgent(folder, {locked: true}).findings.map(applyRepair)
      // Holding the lock means a stale lock (and any stale takeover guard) was taken over; the lock goes on release.
      const seen = new Set(under.map((f) => f.path))
      const staleLocks = before.filter((f) => f.kind === 'stale_lock' && !seen.has(f.path)).map((f) => ({...f, fixed: true}))
      return [...staleLocks, ...under]
    })
  } catch (error) {
    const e = asMemError(error)
    return [...before, {kind: 'busy', path: folder.dir, agent: folder.agent, problem: `the folder could not be repaired: ${e.message}`, fix: 'try again when no mem process is writing to it', fixed: false}]
  }
}

function applyRepair(finding: Finding): Finding {
  if (!finding.repair) return finding
  try {
    finding.repair()
    return {...finding, fixed: true}
  } catch (error) {
    return {...finding, fix: `${finding.fix} (failed: ${asMemError(error).message})`}
  }
}

/** The report holds what was found, not how to repair it. */
function plain(finding: Finding): Problem {
  return v.parse(Problem, finding)
}
