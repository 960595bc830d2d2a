import type * as v from 'valibot'

import type {agentList, checkpointList, checkpointResume, factHistory, factList, memorySearch} from '../ops/index.js'
import {shownOf, type FactEntry} from '../ops/list.js'
import {messagesHeading} from '../ops/resume.js'
import {matchedText, meaningNote} from '../ops/search.js'
import {plural} from '../plural.js'
import {unsearchable} from '../search/tokenize.js'
import {highlight} from './render-highlight.js'
import {relativeTime} from './render-time.js'
import {style, unstyled} from './terminal-style.js'

type Payload<Op extends {output: v.GenericSchema}> = v.InferOutput<Op['output']>

/**
 * The coloured twins of the operations' prose, for a person at a terminal. They show the same
 * facts as the prose, laid out for reading: aligned columns, relative dates, matched words
 * highlighted. Pipes, NO_COLOR and --json never see them (the prose is the contract there).
 */
export type Renderer = (payload: never, now: Date) => string

function pad(text: string, width: number): string {
  return text + ' '.repeat(Math.max(0, width - unstyled(text).length))
}

function widest(texts: string[]): number {
  return Math.max(0, ...texts.map((t) => unstyled(t).length))
}

function tagList(tags: string[]): string {
  return tags.length > 0 ? ` ${style('cyan', tags.map((t) => `#${t}`).join(' '))}` : ''
}

function threadNote(thread: string | undefined): string {
  return thread === undefined ? '' : ` ${style('dim', `~${thread}`)}`
}

/** A hit that came as context shares no word with the query: dimmed, with the match it came with. */
function contextNote(contextFor: string | undefined): string {
  return contextFor === undefined ? '' : `  ${style('magenta', `↳ context for ${contextFor}`)}`
}

/** A hit found by meaning alone shares no word with the query: nothing to highlight, and said so. */
function meaningMark(byMeaning: boolean | undefined): string {
  return byMeaning === true ? `  ${style('blue', '≈ by meaning')}` : ''
}

/** Rows of columns, each column as wide as its widest cell; the last column is left ragged. */
function table(rows: string[][]): string[] {
  const widths = rows[0]?.map((_, col) => widest(rows.map((r) => r[col] ?? ''))) ?? []
  return rows.map((r) =>
    r
      .map((cell, col) => (col === r.length - 1 ? cell : pad(cell, widths[col]!)))
      .join('  ')
      .trimEnd(),
  )
}

function marked(text: string, query: string): string {
  return highlight(text, query)
    .map((s) => (s.match ? style(['bold', 'yellow'], s.text) : s.text))
    .join('')
}

function statusText(f: FactEntry, now: Date): string {
  if (f.status === 'deleted') return style('red', `deleted ${relativeTime(f.deleted_at!, now)}`)
  if (f.status === 'superseded')
    return style('magenta', `replaced ${relativeTime(f.superseded_at!, now)} by ${f.superseded_by}`)
  return ''
}

/**
 * Why a search found nothing when the query itself could match nothing, on a line of its own,
 * so that a search for "the" or "what is it" is not read as an empty memory. Only at a
 * terminal: the plain prose of an empty search is a contract (docs/api-stability.md).
 */
function whyNothingFound(query: string): string {
  const why = unsearchable(query)
  if (why === undefined) return ''
  const text =
    why === 'no words'
      ? 'It holds no letters or digits to search by.'
      : 'Its words are all too common to search by: add a word the fact would hold.'
  return `\n${style('dim', text)}`
}

export function renderSearch(payload: Payload<typeof memorySearch>, now: Date): string {
  const head = `${style('bold', plural(payload.count, 'fact'))} for ${style('bold', `"${payload.query}"`)} ${style('dim', `· agent ${payload.agent_id}`)}`
  const note = meaningNote(payload.meaning)
  const tail = note === undefined ? [] : [style('dim', note)]
  if (payload.count === 0)
    return [
      `${style('yellow', 'No facts found')} for ${style('bold', `"${payload.query}"`)} ${style('dim', `· agent ${payload.agent_id}`)}${whyNothingFound(payload.query)}`,
      ...tail,
    ].join('\n')
  const rows = payload.facts.map((f, i) => [
    style('dim', `${i + 1}.`),
    style('dim', f.id),
    style('green', relativeTime(f.created_at, now)),
    (f.context_for === undefined ? marked(f.content, payload.query) : style('dim', f.content)) +
      tagList(f.tags) +
      threadNote(f.thread) +
      contextNote(f.context_for) +
      meaningMark(f.by_meaning),
  ])
  const lines = table(rows).flatMap((l, i) => {
    const f = payload.facts[i]!
    return f.matched === undefined
      ? [`  ${l}`]
      : [`  ${l}`, `      ${style('dim', matchedText(f.matched, f.context_for, f.by_meaning))}`]
  })
  return [head, ...lines, ...tail].join('\n')
}

export function renderList(payload: Payload<typeof factList>, now: Date): string {
  if (payload.count === 0)
    return `${style('yellow', 'No facts to list')} ${style('dim', `· agent ${payload.agent_id}`)}`
  const head = `${style('bold', shownOf(payload.count, payload.total, 'fact', 'facts'))} ${style('dim', `· agent ${payload.agent_id} · newest first`)}`
  const rows = payload.facts.map((f) => {
    const note = statusText(f, now)
    const content = f.status === 'live' ? f.content : style('dim', f.content)
    return [
      style('dim', f.id),
      style('green', relativeTime(f.created_at, now)),
      content + tagList(f.tags) + threadNote(f.thread) + (note ? `  ${note}` : ''),
    ]
  })
  return [head, ...table(rows).map((l) => `  ${l}`)].join('\n')
}

export function renderHistory(payload: Payload<typeof factHistory>, now: Date): string {
  const lines = [
    `${style('bold', `History of ${payload.fact_id}`)} ${style('dim', `· agent ${payload.agent_id} · ${plural(payload.count, 'version')}, oldest first`)}`,
  ]
  for (const f of payload.versions) {
    const current = f.id === payload.fact_id ? style('bold', '▸ ') : '  '
    lines.push(
      `${current}${style('dim', f.id)}  ${style('green', relativeTime(f.created_at, now))} ${style('dim', `(${f.created_at})`)}`,
    )
    lines.push(
      `    ${f.status === 'live' ? f.content : style('dim', f.content)}${tagList(f.tags)}${threadNote(f.thread)}`,
    )
    if (f.supersedes !== undefined) lines.push(`    ${style('dim', `replaces ${f.supersedes.join(', ')}`)}`)
    if (f.reason !== undefined) lines.push(`    ${style('dim', `reason: ${f.reason}`)}`)
    lines.push(`    ${statusText(f, now) || style('green', 'live')}`)
  }
  return lines.join('\n')
}

export function renderCheckpoints(payload: Payload<typeof checkpointList>, now: Date): string {
  if (payload.count === 0)
    return `${style('yellow', 'No checkpoints saved')} ${style('dim', `· agent ${payload.agent_id}`)}`
  const head = `${style('bold', shownOf(payload.count, payload.total, 'checkpoint', 'checkpoints'))} ${style('dim', `· agent ${payload.agent_id} · newest first`)}`
  const rows = payload.checkpoints.map((cp) => [
    style('dim', cp.id),
    style('green', relativeTime(cp.created_at, now)),
    plural(cp.message_count, 'message'),
    (cp.label === undefined ? '' : `${style('bold', cp.label)}  `) + style('dim', cp.state_keys.join(', ')),
  ])
  return [head, ...table(rows).map((l) => `  ${l}`)].join('\n')
}

export function renderAgents(payload: Payload<typeof agentList>, now: Date): string {
  if (payload.count === 0) return style('yellow', 'No agents have stored anything yet.')
  const rows = [
    ['agent', 'live facts', 'history', 'checkpoints', 'last active'].map((h) => style('dim', h)),
    ...payload.agents.map((a) => [
      style('bold', a.agent_id),
      String(a.facts),
      style('dim', `${a.superseded} replaced, ${a.deleted} deleted`),
      String(a.checkpoints),
      a.last_activity === undefined ? style('dim', 'never') : style('green', relativeTime(a.last_activity, now)),
    ]),
  ]
  return table(rows).join('\n')
}

const JSON_KEY = /^(\s*)("(?:[^"\\]|\\.)*")(: )/
const JSON_STRING = /"(?:[^"\\]|\\.)*"/g

/** JSON indented like JSON.stringify(value, null, 2), with keys and string values coloured. */
export function renderJson(value: unknown): string {
  return JSON.stringify(value, null, 2)
    .split('\n')
    .map((line) => {
      const key = JSON_KEY.exec(line)
      const rest = key ? line.slice(key[0].length) : line
      return (
        (key ? `${key[1]}${style('blue', key[2]!)}${key[3]}` : '') + rest.replace(JSON_STRING, (s) => style('green', s))
      )
    })
    .join('\n')
}

export function renderResume(payload: Payload<typeof checkpointResume>, now: Date): string {
  if (!payload.found)
    return `${style('yellow', 'No checkpoint saved yet')} ${style('dim', `· agent ${payload.agent_id}; starting fresh`)}`
  const lines = [
    `${style('bold', `Checkpoint ${payload.id}`)}${payload.agent_id ? ` ${style('dim', `· agent ${payload.agent_id}`)}` : ''}`,
  ]
  lines.push(
    `${style('dim', 'saved   ')} ${style('green', relativeTime(payload.created_at, now))} ${style('dim', `(${payload.created_at})`)}`,
  )
  if (payload.label !== undefined) lines.push(`${style('dim', 'label   ')} ${style('bold', payload.label)}`)
  lines.push(`${style('dim', 'messages')} ${payload.message_count ?? 0}`)
  lines.push(style('dim', 'state'), renderJson(payload.state ?? {}))
  if (payload.messages !== undefined && payload.messages.length > 0)
    lines.push(
      style('dim', messagesHeading(payload.messages.length, payload.message_count ?? 0)),
      ...payload.messages.map((m) => JSON.stringify(m)),
    )
  return lines.join('\n')
}

/** By operation (tool name); an operation without a renderer prints its prose everywhere. */
export const renderers: Record<string, Renderer> = {
  memory_search: renderSearch as Renderer,
  checkpoint_resume: renderResume as Renderer,
  fact_list: renderList as Renderer,
  fact_history: renderHistory as Renderer,
  checkpoint_list: renderCheckpoints as Renderer,
  agent_list: renderAgents as Renderer,
}
