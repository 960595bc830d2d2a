import {LIMITS} from '../ops/limits.js'

/**
 * ChatGPT's and Claude's conversation exports (`conversations.json` in the archive each one
 * mails you), read as transcripts: each message a turn of its conversation's thread. Both are
 * one JSON array of conversations, not JSON Lines; docs/export-format.md describes what is read.
 *
 * - ChatGPT: `[{id, title, create_time, mapping: {<node>: {message, parent, children}},
 *   current_node}]`, a message `{author: {role}, content: {content_type, parts}, create_time}`,
 *   times in seconds since 1970. The mapping is a tree (an edited prompt or a regenerated reply
 *   starts a branch); the conversation as last shown is the path from `current_node` up to the
 *   root, so that path is what is read.
 * - Claude: `[{uuid, name, created_at, chat_messages: [{sender, text, content, created_at}]}]`,
 *   `sender` "human" or "assistant", ISO times.
 *
 * Only what the user and the assistant said is kept: system prompts, tool calls and their
 * output, and empty messages are left out.
 */

/** One message as a turn line would give it (transcript-format.ts checks it the same way). */
export interface ExportedTurn {
  type: 'turn'
  conversation: string
  speaker: string
  text: string
  time: string
}

export const CHATGPT_FORMAT = 'chatgpt'
export const CLAUDE_FORMAT = 'claude'

/**
 * Which app's export a conversations.json is, told by its first conversation; an array in
 * neither shape is refused.
 */
export function conversationFormat(first: unknown): string {
  if (isObject(first) && isObject(first.mapping)) return CHATGPT_FORMAT
  if (isObject(first) && Array.isArray(first.chat_messages)) return CLAUDE_FORMAT
  throw new Error(
    'a JSON array is read as ChatGPT\'s or Claude\'s conversations.json: its items must be conversations with a "mapping" (ChatGPT) or "chat_messages" (Claude)',
  )
}

/** The turns of one conversation, `place` its number in the file (from 1); read one at a time, so the file is never whole in memory. */
export function conversationTurns(format: string, conversation: unknown, place: number): ExportedTurn[] {
  return format === CHATGPT_FORMAT ? chatGptTurns(conversation, place) : claudeTurns(conversation, place)
}

function chatGptTurns(c: unknown, place: number): ExportedTurn[] {
  const turns: ExportedTurn[] = []
  const where = `conversation ${place}`
  if (!isObject(c) || !isObject(c.mapping)) throw new Error(`${where}: must be an object with a "mapping"`)
  const id = typeof c.id === 'string' ? c.id : c.conversation_id
  if (typeof id !== 'string' || id === '') throw new Error(`${where}: must have an "id"`)
  const mapping = c.mapping
  const conversation = threadOf('chatgpt', id)
  const started = typeof c.create_time === 'number' ? c.create_time : undefined
  // The path shown last: from current_node up to the root, then read root first.
  const path: Record<string, unknown>[] = []
  const seen = new Set<string>()
  let at: unknown = typeof c.current_node === 'string' ? c.current_node : lastLeaf(mapping)
  while (typeof at === 'string' && !seen.has(at) && isObject(mapping[at])) {
    seen.add(at)
    const node = mapping[at] as Record<string, unknown>
    path.push(node)
    at = node.parent
  }
  let time = started
  for (const node of path.reverse()) {
    const message = node.message
    if (!isObject(message)) continue
    const role = isObject(message.author) ? message.author.role : undefined
    if (role !== 'user' && role !== 'assistant') continue
    const content = message.content
    if (!isObject(content) || (content.content_type !== undefined && content.content_type !== 'text')) continue
    const parts = Array.isArray(content.parts) ? content.parts.filter((p): p is string => typeof p === 'string') : []
    const said = parts.join('\n').trim()
    if (said === '') continue
    if (typeof message.create_time === 'number') time = message.create_time
    if (time === undefined) throw new Error(`${where}: a message has no create_time, nor has the conversation`)
    turns.push(...split({type: 'turn', conversation, speaker: role, text: said, time: isoOfSeconds(time, where)}))
  }
  return turns
}

function claudeTurns(c: unknown, place: number): ExportedTurn[] {
  const turns: ExportedTurn[] = []
  const where = `conversation ${place}`
  if (!isObject(c) || !Array.isArray(c.chat_messages))
    throw new Error(`${where}: must be an object with "chat_messages"`)
  if (typeof c.uuid !== 'string' || c.uuid === '') throw new Error(`${where}: must have a "uuid"`)
  const conversation = threadOf('claude', c.uuid)
  for (const message of c.chat_messages) {
    if (!isObject(message)) continue
    const speaker = message.sender === 'human' ? 'user' : message.sender === 'assistant' ? 'assistant' : undefined
    if (speaker === undefined) continue
    const said = claudeText(message).trim()
    if (said === '') continue
    const created = typeof message.created_at === 'string' ? message.created_at : c.created_at
    if (typeof created !== 'string' || Number.isNaN(Date.parse(created)))
      throw new Error(`${where}: a message has no valid created_at, nor has the conversation`)
    turns.push(...split({type: 'turn', conversation, speaker, text: said, time: new Date(created).toISOString()}))
  }
  return turns
}

/** A Claude message's words: its `text`, or else the text blocks of its `content`. */
function claudeText(message: Record<string, unknown>): string {
  if (typeof message.text === 'string' && message.text.trim() !== '') return message.text
  if (!Array.isArray(message.content)) return ''
  return message.content
    .filter((b): b is Record<string, unknown> => isObject(b) && b.type === 'text' && typeof b.text === 'string')
    .map((b) => b.text as string)
    .join('\n')
}

/**
 * A message too long for one fact becomes several turns of the same speaker and time, cut at a
 * line break or space where there is one, so nothing said is lost.
 */
function split(turn: ExportedTurn): ExportedTurn[] {
  const room = LIMITS.contentLength - turn.speaker.length - 2
  if (turn.text.length <= room) return [turn]
  const out: ExportedTurn[] = []
  let rest = turn.text
  while (rest.length > room) {
    const window = rest.slice(0, room)
    let cut = Math.max(window.lastIndexOf('\n'), window.lastIndexOf(' '))
    if (cut < room / 2) cut = room
    out.push({...turn, text: rest.slice(0, cut).trimEnd()})
    rest = rest.slice(cut).trimStart()
  }
  if (rest !== '') out.push({...turn, text: rest})
  return out
}

/** The thread of an exported conversation: the app's name and its id, as the thread rule allows. */
function threadOf(app: string, id: string): string {
  return `${app}-${id.replace(/[^A-Za-z0-9._:@+/-]/g, '-')}`.slice(0, LIMITS.threadLength)
}

function isoOfSeconds(seconds: number, where: string): string {
  const ms = Math.round(seconds * 1000)
  if (!Number.isFinite(ms) || Number.isNaN(new Date(ms).getTime()))
    throw new Error(`${where}: create_time ${seconds} is not a time`)
  return new Date(ms).toISOString()
}

/** Without current_node, the path ends at a node with no children (the last such in the file). */
function lastLeaf(mapping: Record<string, unknown>): string | undefined {
  let leaf: string | undefined
  for (const [id, node] of Object.entries(mapping))
    if (isObject(node) && (!Array.isArray(node.children) || node.children.length === 0)) leaf = id
  return leaf
}

function isObject(x: unknown): x is Record<string, unknown> {
  return typeof x === 'object' && x !== null && !Array.isArray(x)
}
