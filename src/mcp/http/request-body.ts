import type {IncomingMessage} from 'node:http'

import {LIMITS} from '../../ops/limits.js'
import {refusal, type Answer} from './answer.js'
import {jsonNestsDeeperThan} from './json-depth.js'

/**
 * The deepest a body may nest arrays and objects. A checkpoint's state and messages may nest
 * LIMITS.jsonDepth (64) levels, and sit four levels down in a message (the message, params,
 * arguments, state) and five in a batch; the room above that lets a state slightly too deep
 * get the tool's own error naming its limit rather than this one.
 */
export const BODY_DEPTH_LIMIT = 100

/** A body, parsed, or why it is refused (as a JSON-RPC error code and message). */
export type ParsedBody = {body: unknown} | {refused: {code: number; message: string}}

/** A request's JSON-RPC messages, with the methods and tools they call; or 413 or 400. */
export async function readMessages(
  req: IncomingMessage,
  limit: number,
): Promise<{body: unknown; methods: string[]; tools: string[]} | Answer> {
  const raw = await readBody(req, limit)
  if (raw === 'too_large')
    return refusal(413, -32000, `Request body too large: at most ${limit} bytes.`, {Connection: 'close'})
  const parsed = parseBody(raw)
  if ('refused' in parsed) return refusal(400, parsed.refused.code, parsed.refused.message)
  return {body: parsed.body, ...describeMessages(parsed.body)}
}

/**
 * The request body, up to `limit` bytes. A declared Content-Length over the limit is refused
 * before anything is read; otherwise reading stops as soon as the limit is passed.
 */
export function readBody(req: IncomingMessage, limit: number): Promise<Buffer | 'too_large'> {
  const declared = Number(req.headers['content-length'])
  if (Number.isFinite(declared) && declared > limit) return Promise.resolve('too_large')
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = []
    let size = 0
    const onData = (chunk: Buffer) => {
      size += chunk.length
      if (size > limit) {
        req.off('data', onData)
        req.pause()
        resolve('too_large')
        return
      }
      chunks.push(chunk)
    }
    req.on('data', onData)
    req.once('end', () => resolve(Buffer.concat(chunks)))
    req.once('error', reject)
  })
}

/**
 * The body as JSON-RPC, or a refusal. Nesting is checked on the bytes before parsing, since
 * parsing JSON nested a million deep holds the event loop for a second or more.
 */
export function parseBody(raw: Buffer): ParsedBody {
  if (jsonNestsDeeperThan(raw, BODY_DEPTH_LIMIT))
    return refused(
      -32600,
      `Invalid Request: the body nests arrays and objects deeper than ${BODY_DEPTH_LIMIT} levels, the most a message may (a checkpoint's state may nest ${LIMITS.jsonDepth}).`,
    )
  let body: unknown
  try {
    body = JSON.parse(raw.toString('utf8'))
  } catch {
    return refused(-32700, 'Parse error: the body is not valid JSON.')
  }
  // JSON-RPC 2.0 calls an empty batch an invalid request; the SDK would answer it 202 and nothing.
  if (Array.isArray(body) && body.length === 0)
    return refused(-32600, 'Invalid Request: the batch is empty; send at least one message.')
  const repeated = repeatedId(body)
  if (repeated !== undefined)
    return refused(
      -32600,
      `Invalid Request: the batch holds more than one request with id ${repeated}; give each request its own id. Nothing in it was run.`,
    )
  return {body}
}

/**
 * The first id two requests of a batch share, as JSON. Each would run (and store) while only
 * one answer could come back under that id, so such a batch is refused before any of it runs.
 * 1 and "1" are different ids.
 */
function repeatedId(body: unknown): string | undefined {
  if (!Array.isArray(body)) return undefined
  const seen = new Set<string>()
  for (const message of body as {method?: unknown; id?: unknown}[]) {
    if (typeof message?.method !== 'string') continue
    if (typeof message.id !== 'string' && typeof message.id !== 'number') continue
    const id = JSON.stringify(message.id)
    if (seen.has(id)) return id.length > 80 ? `${id.slice(0, 79)}…` : id
    seen.add(id)
  }
  return undefined
}

function refused(code: number, message: string): ParsedBody {
  return {refused: {code, message}}
}

/** The tools a JSON-RPC message (or batch) calls, and its methods, for authorisation and the log. */
export function describeMessages(body: unknown): {methods: string[]; tools: string[]} {
  const messages = Array.isArray(body) ? body : [body]
  const methods: string[] = []
  const tools: string[] = []
  for (const m of messages as {method?: unknown; params?: {name?: unknown}}[]) {
    if (typeof m?.method !== 'string') continue
    methods.push(m.method)
    if (m.method === 'tools/call') tools.push(typeof m.params?.name === 'string' ? m.params.name : '')
  }
  return {methods, tools}
}
