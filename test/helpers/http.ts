import {spawn, type ChildProcess} from 'node:child_process'
import {request as httpRequest} from 'node:http'
import {createInterface} from 'node:readline'

import {StreamableHTTPClientTransport} from '@modelcontextprotocol/sdk/client/streamableHttp.js'

import {openSession, type McpSession} from './mcp.js'
import {BIN, childEnv, mem, memAsync} from './mem.js'

export interface HttpServe {
  url: string
  child: ChildProcess
  /** Every stderr line so far (the server logs one JSON object per line). */
  logs: string[]
  /** Sends a signal and resolves with the exit code. */
  stop: (signal?: NodeJS.Signals) => Promise<number | null>
}

/** Starts the built `mem mcp serve --http` on a free loopback port and waits until it listens. */
export async function startHttpServe(
  home: string,
  args: string[] = [],
  env: Record<string, string | undefined> = {},
): Promise<HttpServe> {
  const child = spawn(process.execPath, [BIN, 'mcp', 'serve', '--http', '--port', '0', ...args], {
    env: childEnv(home, env),
    stdio: ['ignore', 'ignore', 'pipe'],
  })
  const logs: string[] = []
  // 'close', not 'exit': every stderr line has been read by then.
  const exited = new Promise<number | null>((resolve) => child.once('close', (code) => resolve(code)))
  const url = await new Promise<string>((resolve, reject) => {
    createInterface({input: child.stderr!}).on('line', (line) => {
      logs.push(line)
      const entry = parseLine(line)
      if (entry?.event === 'listening') resolve(String(entry.url))
    })
    void exited.then((code) =>
      reject(new Error(`mem mcp serve --http exited (${code}) before listening:\n${logs.join('\n')}`)),
    )
  })
  return {
    url,
    child,
    logs,
    stop: async (signal = 'SIGTERM') => {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal)
      return exited
    },
  }
}

function parseLine(line: string): Record<string, unknown> | undefined {
  try {
    return JSON.parse(line) as Record<string, unknown>
  } catch {
    return undefined
  }
}

/** `mem token create --json …` in `home`; returns the token text. */
export function createToken(home: string, args: string[] = []): string {
  const r = mem(home, ['token', 'create', '--json', ...args])
  if (r.code !== 0) throw new Error(`mem token create failed: ${r.stderr}`)
  return (JSON.parse(r.stdout) as {token: string}).token
}

/** The same, run as a separate process, for making many tokens at once. */
export async function createTokenAsync(home: string, args: string[] = []): Promise<string> {
  const r = await memAsync(home, ['token', 'create', '--json', ...args])
  if (r.code !== 0) throw new Error(`mem token create failed: ${r.stderr}`)
  return (JSON.parse(r.stdout) as {token: string}).token
}

/** The official 1.x SDK client over Streamable HTTP, with the token in the Authorization header. */
export async function connectHttp(
  url: string,
  token: string | undefined,
  more: Record<string, string> = {},
): Promise<McpSession> {
  const headers: Record<string, string> = token === undefined ? {...more} : {...more, Authorization: `Bearer ${token}`}
  return openSession(new StreamableHTTPClientTransport(new URL(url), {requestInit: {headers}}), 'mem-tests-http')
}

/** A raw POST to the server, for what an SDK client would never send. */
export async function post(url: string, body: unknown, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(url, {
    method: 'POST',
    headers: {
      'Content-Type': 'application/json',
      Accept: 'application/json, text/event-stream',
      'MCP-Protocol-Version': '2025-11-25',
      ...headers,
    },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  })
}

/** A POST through node:http, which (unlike fetch) sends the Host header it is given. */
export function rawPost(
  url: string,
  body: unknown,
  headers: Record<string, string> = {},
): Promise<{status: number; headers: Record<string, unknown>; text: string}> {
  const text = JSON.stringify(body)
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      url,
      {
        method: 'POST',
        headers: {
          'Content-Type': 'application/json',
          Accept: 'application/json, text/event-stream',
          'Content-Length': Buffer.byteLength(text),
          ...headers,
        },
      },
      (res) => {
        let data = ''
        res.setEncoding('utf8').on('data', (d: string) => (data += d))
        res.on('end', () => resolve({status: res.statusCode ?? 0, headers: res.headers, text: data}))
      },
    )
    req.on('error', reject)
    req.end(text)
  })
}

/** Waits for a log line the server writes after answering (stderr can arrive after the answer). */
export async function logLine(
  served: HttpServe,
  match: (entry: Record<string, unknown>) => boolean,
): Promise<Record<string, unknown>> {
  for (let i = 0; i < 500; i++) {
    const found = served.logs.map(parseLine).find((e) => e !== undefined && match(e))
    if (found) return found
    await new Promise((resolve) => setTimeout(resolve, 10))
  }
  throw new Error(`no such log line in:\n${served.logs.join('\n')}`)
}
