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
  'vectors',
] as const

/** One thing found wrong, what --fix does (or what the user must do) about it, and whether it was done. */
export const Problem = v.object({
  kind: v.picklist(PROBLEM_KINDS),
  path: v.string(),
  agent: v.optional(v.string()),
  problem: v.string(),
  fix: v.string(),
  fixed: v.boolean(),
  /** For a journal --fix repaired: the changes it kept, the lines it set aside and the file that holds them. */
  set_aside: v.optional(
    v.object({
      kept: v.number(),
      lines: v.array(v.number()),
      file: v.optional(v.string()),
    }),
  ),
})
export type Problem = v.InferOutput<typeof Problem>

export const NOTE_KINDS = ['torn_line', 'set_aside_file'] as const

/** Something worth knowing that needs no repair: it does not make the report's `ok` false. */
export const Note = v.object({
  kind: v.picklist(NOTE_KINDS),
  path: v.string(),
  agent: v.optional(v.string()),
  note: v.string(),
})
export type Note = v.InferOutput<typeof Note>

/** The payload of `mem doctor --json`. `ok` is true when nothing is left to fix. */
export const DoctorReport = v.object({
  home: v.string(),
  ok: v.boolean(),
  fix: v.boolean(),
  checked: v.object({agents: v.number(), files: v.number()}),
  problems: v.array(Problem),
  /** What needs no repair but should not pass unsaid: an unfinished last line left out of a journal, lines set aside. */
  notes: v.optional(v.array(Note)),
  /** False when the home folder does not exist: nothing has been stored there yet. */
  exists: v.optional(v.boolean()),
})
export type DoctorReport = v.InferOutput<typeof DoctorReport>

export function prose(report: DoctorReport): string {
  if (report.exists === false)
    return `Nothing is stored in ${report.home} yet: the folder does not exist. mem creates it when something is first stored (check MEM_HOME if you expected data here).`
  const head = `Checked ${plural(report.checked.files, 'data file')} of ${plural(report.checked.agents, 'agent')} in ${report.home}.`
  const notes = report.notes ?? []
  if (report.problems.length === 0 && notes.length === 0) return `${head}\nEverything is in order.`
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
  for (const n of notes) lines.push('', `[note] ${n.path}`, `  ${n.note}`)
  const left = report.problems.filter((p) => !p.fixed).length
  lines.push(
    '',
    report.problems.length === 0
      ? 'Everything else is in order.'
      : left === 0
        ? 'All problems were fixed.'
        : `${plural(left, 'problem')} left.${report.fix ? '' : ' Run "mem doctor --fix" to repair what can be repaired safely.'}`,
  )
  return lines.join('\n')
}
