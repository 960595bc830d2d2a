import type {Readable, Writable} from 'node:stream'

import type {Transport} from '@modelcontextprotocol/server'
import {parseJSONRPCMessage, type JSONRPCMessage, type RequestId} from '@modelcontextprotocol/server'

/** The largest message read from stdin: the HTTP server's default body limit, so both surfaces take the same. */
export const MAX_MESSAGE_BYTES = 2 * 1024 * 1024

const NEWLINE = 0x0a

/**
 * MCP over stdin and stdout, one JSON-RPC message a line, in place of the SDK's
 * StdioServerTransport for two things it does not do:
 *
 * - A line longer than `maxMessageBytes` is answered with an error and the next line is read as
 *   usual. The SDK's reader gives up past 10 MiB and closes, so a client got no answer to
 *   anything after. The oversized line is dropped as it streams in, never held whole.
 * - At the end of stdin, every request already read is answered before the transport closes.
 *   Closing at once dropped the answers to writes that were stored, and a client that retried
 *   them stored them twice.
 */
export class StdioLineTransport implements Transport {
  onclose?: () => void
  onerror?: (error: Error) => void
  onmessage?: (message: JSONRPCMessage) => void

  private line: Buffer[] = []
  private lineBytes = 0
  /** Set while an oversized line is being dropped: reads what it can of its id. */
  private dropping: IdScanner | undefined
  /** Requests read and not yet answered, by id (a client may reuse one). */
  private readonly unanswered = new Map<string, number>()
  private ended = false
  private closed = false
  private finish!: () => void
  /** Settles once the transport has closed: the end of stdin with every request answered, or a close. */
  readonly finished = new Promise<void>((resolve) => (this.finish = resolve))

  constructor(
    private readonly stdin: Readable,
    private readonly stdout: Writable,
    private readonly maxMessageBytes = MAX_MESSAGE_BYTES,
  ) {}

  async start(): Promise<void> {
    this.stdin.on('data', this.onData)
    this.stdin.on('error', this.onError)
    this.stdin.on('end', this.onEnd)
  }

  send(message: JSONRPCMessage): Promise<void> {
    if ('id' in message && message.id !== undefined && ('result' in message || 'error' in message))
      this.answered(message.id)
    return new Promise<void>((resolve) => {
      if (this.stdout.write(`${JSON.stringify(message)}\n`)) resolve()
      else this.stdout.once('drain', resolve)
    }).then(() => this.closeIfDone())
  }

  async close(): Promise<void> {
    if (this.closed) return
    this.closed = true
    this.stdin.off('data', this.onData)
    this.stdin.off('error', this.onError)
    this.stdin.off('end', this.onEnd)
    this.stdin.pause()
    this.onclose?.()
    this.finish()
  }

  private readonly onData = (chunk: Buffer | string): void => {
    const bytes = typeof chunk === 'string' ? Buffer.from(chunk) : chunk
    let start = 0
    while (start <= bytes.length) {
      const end = bytes.indexOf(NEWLINE, start)
      this.take(bytes.subarray(start, end === -1 ? bytes.length : end))
      if (end === -1) return
      this.endOfLine()
      start = end + 1
    }
  }

  private readonly onError = (error: Error): void => this.onerror?.(error)

  /** A line cut off by the end of stdin was never sent whole, so it is not read. */
  private readonly onEnd = (): void => {
    this.ended = true
    this.line = []
    this.dropping = undefined
    this.closeIfDone()
  }

  private take(piece: Buffer): void {
    if (piece.length === 0) return
    if (this.dropping) {
      this.dropping.feed(piece)
      return
    }
    if (this.lineBytes + piece.length > this.maxMessageBytes) {
      this.dropping = new IdScanner()
      for (const held of this.line) this.dropping.feed(held)
      this.dropping.feed(piece)
      this.line = []
      this.lineBytes = 0
      return
    }
    this.line.push(piece)
    this.lineBytes += piece.length
  }

  private endOfLine(): void {
    if (this.dropping) {
      const id = this.dropping.id()
      this.dropping = undefined
      this.reply(
        id,
        -32000,
        `Message too large: at most ${this.maxMessageBytes} bytes (${this.maxMessageBytes / 1024 / 1024} MiB) on one line.`,
      )
      return
    }
    const text = Buffer.concat(this.line, this.lineBytes).toString('utf8').replace(/\r$/, '')
    this.line = []
    this.lineBytes = 0
    let value: unknown
    try {
      value = JSON.parse(text)
    } catch {
      // JSON-RPC asks for an error reply with id null; the input is not echoed.
      this.reply(null, -32700, 'Parse error: the message is not valid JSON.')
      return
    }
    let message: JSONRPCMessage
    try {
      message = parseJSONRPCMessage(value)
    } catch {
      this.reply(null, -32600, 'Invalid Request: the message is not a JSON-RPC 2.0 request, notification or response.')
      return
    }
    this.track(message)
    this.onmessage?.(message)
  }

  private track(message: JSONRPCMessage): void {
    if ('method' in message && 'id' in message) {
      const key = idKey(message.id)
      this.unanswered.set(key, (this.unanswered.get(key) ?? 0) + 1)
    }
    // A cancelled request is never answered (the SDK drops its result), so it is not waited for.
    if ('method' in message && !('id' in message) && message.method === 'notifications/cancelled') {
      const id = (message.params as {requestId?: RequestId} | undefined)?.requestId
      if (id !== undefined) this.answered(id)
    }
  }

  private answered(id: RequestId): void {
    const key = idKey(id)
    const left = (this.unanswered.get(key) ?? 0) - 1
    if (left > 0) this.unanswered.set(key, left)
    else this.unanswered.delete(key)
  }

  private closeIfDone(): void {
    if (this.ended && this.unanswered.size === 0) void this.close()
  }

  private reply(id: RequestId | null, code: number, message: string): void {
    this.send({jsonrpc: '2.0', id, error: {code, message}} as unknown as JSONRPCMessage).catch(() => {})
  }
}

function idKey(id: RequestId): string {
  return `${typeof id}:${id}`
}

const QUOTE = 0x22
const BACKSLASH = 0x5c
const COLON = 0x3a
const COMMA = 0x2c
const OPEN_BRACE = 0x7b
const CLOSE_BRACE = 0x7d
const OPEN_BRACKET = 0x5b
const CLOSE_BRACKET = 0x5d
const I = 0x69
const D = 0x64
/** An id longer than this is not a plausible one; the reply goes out with id null. */
const MAX_ID_BYTES = 256

/**
 * The `id` of a JSON object streamed past in pieces, read in one pass with constant memory, so
 * that a message too large to keep can still be answered with its id. It looks only at the
 * object's own keys: an "id" inside params does not count. Clients put the id before or after
 * the params, so the whole line may be scanned; the scan stops as soon as the id is read.
 */
class IdScanner {
  private depth = 0
  private inString = false
  private escaped = false
  private expectKey = false
  /** While a top-level key is read: its length, and whether it is "id" so far. */
  private keyLength = -1
  private keyIsId = false
  private lastKeyIsId = false
  /** The raw bytes of the top-level "id" value, while it is read. */
  private value: number[] | undefined
  private raw: string | undefined
  private gaveUp = false

  feed(bytes: Buffer): void {
    for (let i = 0; i < bytes.length; i++) {
      if (this.raw !== undefined || this.gaveUp) return
      const c = bytes[i]!
      if (this.value) {
        if (!this.inString && this.depth === 1 && (c === COMMA || c === CLOSE_BRACE)) {
          this.raw = Buffer.from(this.value).toString('utf8')
          return
        }
        this.value.push(c)
        if (this.value.length > MAX_ID_BYTES) this.gaveUp = true
      }
      if (this.inString) {
        if (this.escaped) this.escaped = false
        else if (c === BACKSLASH) this.escaped = true
        else if (c === QUOTE) {
          this.inString = false
          if (this.keyLength >= 0) {
            this.lastKeyIsId = this.keyIsId && this.keyLength === 2
            this.keyLength = -1
          }
          continue
        }
        if (this.keyLength >= 0) {
          this.keyIsId &&= (this.keyLength === 0 && c === I) || (this.keyLength === 1 && c === D)
          this.keyLength++
        }
        continue
      }
      switch (c) {
        case QUOTE: {
          this.inString = true
          if (this.depth === 1 && this.expectKey) {
            this.keyLength = 0
            this.keyIsId = true
          }
          break
        }
        case OPEN_BRACE:
        case OPEN_BRACKET: {
          this.depth++
          if (this.depth === 1) this.expectKey = c === OPEN_BRACE
          break
        }
        case CLOSE_BRACE:
        case CLOSE_BRACKET: {
          this.depth--
          if (this.depth <= 0) this.gaveUp = true
          break
        }
        case COLON: {
          if (this.depth === 1) {
            this.expectKey = false
            if (this.lastKeyIsId) this.value = []
          }
          break
        }
        case COMMA: {
          if (this.depth === 1) this.expectKey = true
          break
        }
      }
    }
  }

  /** The id if one was read and is a string or a number, as JSON-RPC ids are; else null. */
  id(): RequestId | null {
    if (this.raw === undefined) return null
    try {
      const id: unknown = JSON.parse(this.raw)
      return typeof id === 'string' || (typeof id === 'number' && Number.isFinite(id)) ? id : null
    } catch {
      return null
    }
  }
}
