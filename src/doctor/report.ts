import * as v from 'valibot'

import {plural} from '../plural.js'

export const PROBLEM_KINDS = [
  'corrupt_file',
  'unsupported_version',
  'permissions',
  'stale_lock',
  'temp_file',
  'link',
  'busy',
  'bad_lock',
  'search_index',
] as const

/** One thing found wrong, what --fix does (or what the user must do) about it, and whether it was done. */
export const Problem = v.object({
  kind: v.picklist(PROBLEM_KINDS),
  path: v.string(),
  agent: v.optional(v.string()),
  problem: v.string(),
  fix: v.string(),
  fixed: v.boolean(),
})
export type Problem = v.InferOutput<typeof Problem>

/** The payload of `mem doctor --json`. `ok` is true when nothing is left to fix. */
export const DoctorReport = v.object({
  home: v.string(),
  ok: v.boolean(),
  fix: v.boolean(),
  checked: v.object({agents: v.number(), files: v.number()}),
  problems: v.array(Problem),
  /** False when the home folder does not exist: nothing has been stored there yet. */
  exists: v.optional(v.boolean()),
})
export type DoctorReport = v.InferOutput<typeof DoctorReport>

export function prose(report: DoctorReport): string {
  if (report.exists === false)
    return `Nothing is stored in ${report.home} yet: the folder does not exist. mem creates it when something is first stored (check MEM_HOME if you expected data here).`
  const head = `Checked ${plural(report.checked.files, 'data file')} of ${plural(report.checked.agents, 'agent')} in ${report.home}.`
  if (report.problems.length === 0) return `${head}\nEverything is in order.`
  const lines = [head]
  for (const p of report.problems) {
    const mark = p.fixed ? 'fixed' : report.fix ? 'NOT FIXED' : 'problem'
    lines.push(
      '',
      `[${mark}] ${p.path}`,
      `  ${p.problem}`,
      `  ${p.fixed ? 'Done: ' : report.fix ? 'To do: ' : '--fix: '}${p.fix}`,
    )
  }
  const left = report.problems.filter((p) => !p.fixed).length
  lines.push(
    '',
    left === 0
      ? 'All problems were fixed.'
      : `${plural(left, 'problem')} left.${report.fix ? '' : ' Run "mem doctor --fix" to repair what can be repaired safely.'}`,
  )
  return lines.join('\n')
}
