import {existsSync, readFileSync, readdirSync} from 'node:fs'
import path from 'node:path'
import {fileURLToPath} from 'node:url'

/** One dialog turn of a LoCoMo conversation, as stored in `facts/locomo-N.jsonl`. */
export interface Turn {
  agent_id: string
  id: string
  content: string
  session: number
  session_date: string
}

export interface Query {
  agent_id: string
  qid: string
  question: string
  evidence: string[]
  category: number
  category_name: string
}

export interface Conversation {
  agentId: string
  turns: Turn[]
  queries: Query[]
}

/**
 * The data is licensed non-commercial, so it is read from outside the repo and never copied in.
 * Default: the first `shared/bench/locomo` folder beside the repo or beside one of its parent
 * folders (a git worktree sits deeper than the main checkout).
 */
export function locomoDir(): string {
  if (process.env.LOCOMO_DIR) return path.resolve(process.env.LOCOMO_DIR)
  const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..')
  for (let dir = path.dirname(repoRoot); ; dir = path.dirname(dir)) {
    const candidate = path.join(dir, 'shared/bench/locomo')
    if (existsSync(candidate)) return candidate
    if (path.dirname(dir) === dir) return path.resolve(repoRoot, '../shared/bench/locomo')
  }
}

function readJsonl<T>(file: string): T[] {
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as T)
}

export function loadConversations(dir = locomoDir()): Conversation[] {
  const queries = readJsonl<Query>(path.join(dir, 'queries.jsonl'))
  const files = readdirSync(path.join(dir, 'facts'))
    .filter((f) => f.endsWith('.jsonl'))
    .sort((a, b) => a.localeCompare(b, 'en', {numeric: true}))
  return files.map((file) => {
    const turns = readJsonl<Turn>(path.join(dir, 'facts', file))
    const agentId = turns[0]?.agent_id ?? path.basename(file, '.jsonl')
    return {agentId, turns, queries: queries.filter((q) => q.agent_id === agentId)}
  })
}

const MONTHS = ['january', 'february', 'march', 'april', 'may', 'june', 'july', 'august', 'september', 'october', 'november', 'december']

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
