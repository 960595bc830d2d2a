import {existsSync, readFileSync, readdirSync} from 'node:fs'
import path from 'node:path'
import {fileURLToPath} from 'node:url'

/** One stored item: the benchmark's own key for it, its text, its time, and the conversation it belongs to. */
export interface Doc {
  key: string
  content: string
  createdAt: string
  thread?: string
  /** The session the item comes from, for session-level recall. */
  group?: string
}

export interface Question {
  question: string
  category: string
  evidence: string[]
  evidenceGroups?: string[]
}

/** What one fresh agent holds, and the questions asked of it. */
export interface Haystack {
  name: string
  docs: Doc[]
  questions: Question[]
}

/**
 * A benchmark set and how it goes in: `import` (mem import of a mem.export file, which keeps
 * times and threads) or `add` (one memory_add per item, as an agent stores facts: no time of
 * its own, no thread).
 */
export interface RecallSet {
  name: string
  load: 'import' | 'add'
  categories: string[]
  haystacks: Haystack[]
}

/**
 * The sets are licensed for measuring only, so they are read from outside the repository and
 * never copied in: `$BENCH_DIR`, default the first `shared/bench` folder beside the repository
 * or beside one of its parent folders (a git worktree sits deeper than the main checkout).
 */
export function benchDir(): string {
  if (process.env.BENCH_DIR) return path.resolve(process.env.BENCH_DIR)
  const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..')
  for (let dir = path.dirname(repoRoot); ; dir = path.dirname(dir)) {
    const candidate = path.join(dir, 'shared/bench')
    if (existsSync(candidate)) return candidate
    if (path.dirname(dir) === dir) return path.resolve(repoRoot, '../shared/bench')
  }
}

function readJsonl<T>(file: string): T[] {
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as T)
}

/** The files of `facts/`, in numeric order, each with the queries of its agent. */
function byAgent<F extends {agent_id: string}, Q extends {agent_id: string}>(
  dir: string,
): {agent: string; facts: F[]; queries: Q[]}[] {
  const queries = readJsonl<Q>(path.join(dir, 'queries.jsonl'))
  return readdirSync(path.join(dir, 'facts'))
    .filter((f) => f.endsWith('.jsonl'))
    .sort((a, b) => a.localeCompare(b, 'en', {numeric: true}))
    .map((file) => {
      const facts = readJsonl<F>(path.join(dir, 'facts', file))
      const agent = facts[0]?.agent_id ?? path.basename(file, '.jsonl')
      return {agent, facts, queries: queries.filter((q) => q.agent_id === agent)}
    })
}

const MONTHS = [
  'january',
  'february',
  'march',
  'april',
  'may',
  'june',
  'july',
  'august',
  'september',
  'october',
  'november',
  'december',
]

/** "1:56 pm on 8 May, 2023" -> "2023-05-08T13:56:00.000Z"; undefined when the format is not recognised. */
export function sessionDateToIso(text: string): string | undefined {
  const m = /^(\d{1,2}):(\d{2})\s*(am|pm)\s+on\s+(\d{1,2})\s+([a-z]+),?\s+(\d{4})$/i.exec(text.trim())
  if (!m) return undefined
  const [, hh, mm, ampm, day, monthName, year] = m
  const month = MONTHS.indexOf(monthName!.toLowerCase())
  if (month < 0) return undefined
  let hour = Number(hh) % 12
  if (ampm!.toLowerCase() === 'pm') hour += 12
  return new Date(Date.UTC(Number(year), month, Number(day), hour, Number(mm))).toISOString()
}

function isoOf(sessionDate: string, what: string): number {
  const iso = sessionDateToIso(sessionDate)
  if (iso === undefined) throw new Error(`${what}: session date not recognised: ${JSON.stringify(sessionDate)}`)
  return Date.parse(iso)
}

/** A thread id mem accepts, made from a session's id. */
function threadId(session: string): string {
  return `s-${session.replace(/[^A-Za-z0-9._:@+/-]/g, '-')}`.slice(0, 64)
}

const LOCOMO_CATEGORIES = ['multi-hop', 'temporal', 'open-domain', 'single-hop', 'adversarial']

interface LocomoItem {
  agent_id: string
  id: string
  content: string
  session: number
  session_date: string
}
interface LocomoQuery {
  agent_id: string
  question: string
  evidence: string[]
  category_name: string
}

/** LoCoMo dialog turns: one thread per session, each turn at its session's date, one second apart so their order is kept. */
export function locomo(dir = path.join(benchDir(), 'locomo')): RecallSet {
  return {
    name: 'locomo',
    load: 'import',
    categories: LOCOMO_CATEGORIES,
    haystacks: byAgent<LocomoItem, LocomoQuery>(dir).map(({agent, facts, queries}) => {
      const step = new Map<number, number>()
      return {
        name: agent,
        docs: facts.map((t) => {
          const n = step.get(t.session) ?? 0
          step.set(t.session, n + 1)
          return {
            key: t.id,
            content: t.content,
            createdAt: new Date(isoOf(t.session_date, t.id) + 1000 * n).toISOString(),
            thread: threadId(String(t.session)),
          }
        }),
        questions: queries.map((q) => ({question: q.question, category: q.category_name, evidence: q.evidence})),
      }
    }),
  }
}

/** LoCoMo's distilled observations: standalone facts, one memory_add each, no thread. */
export function locomoFacts(dir = path.join(benchDir(), 'locomo-facts')): RecallSet {
  return {
    name: 'locomo-facts',
    load: 'add',
    categories: LOCOMO_CATEGORIES,
    haystacks: byAgent<LocomoItem, LocomoQuery>(dir).map(({agent, facts, queries}) => ({
      name: agent,
      docs: facts.map((f) => ({
        key: f.id,
        content: f.content,
        createdAt: new Date(isoOf(f.session_date, f.id)).toISOString(),
      })),
      questions: queries.map((q) => ({question: q.question, category: q.category_name, evidence: q.evidence})),
    })),
  }
}

interface LmeTurn {
  agent_id: string
  id: string
  content: string
  created_at: string
}
interface LmeQuery {
  agent_id: string
  question: string
  evidence: string[]
  evidence_sessions: string[]
  category: string
}

/** LongMemEval chat histories: one agent per question, one thread per session, created_at as the time. */
export function longMemEval(dir = path.join(benchDir(), 'longmemeval')): RecallSet {
  const haystacks = byAgent<LmeTurn, LmeQuery>(dir).map(({agent, facts, queries}) => ({
    name: agent,
    docs: facts.map((t) => {
      const session = t.id.slice(0, t.id.lastIndexOf(':'))
      return {
        key: t.id,
        content: t.content,
        createdAt: new Date(Date.parse(t.created_at)).toISOString(),
        thread: threadId(session),
        group: session,
      }
    }),
    questions: queries.map((q) => ({
      question: q.question,
      category: q.category,
      evidence: q.evidence,
      evidenceGroups: q.evidence_sessions,
    })),
  }))
  const categories = [...new Set(haystacks.flatMap((h) => h.questions.map((q) => q.category)))].sort()
  return {name: 'longmemeval', load: 'import', categories, haystacks}
}
