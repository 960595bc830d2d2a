import type {IncomingMessage, ServerResponse} from 'node:http'

/** What one request did, for its log line: never a token or memory content. */
export interface RequestLog {
  time: string
  method: string
  path: string
  token?: string
  rpc?: string[]
  tool?: string[]
  result?: string[]
  status?: number
}

/** The request's log entry, filled in as it is served and written when its connection closes. */
export function logRequest(
  req: IncomingMessage,
  res: ServerResponse,
  log: (entry: Record<string, unknown>) => void,
): RequestLog {
  const started = performance.now()
  const entry: RequestLog = {
    time: new Date().toISOString(),
    method: req.method ?? '',
    path: (req.url ?? '').split('?')[0] ?? '',
  }
  res.once('close', () =>
    log({
      ...entry,
      // A connection lost (or cut at a stop) before the answer went out: no status was sent.
      ...(res.writableFinished ? {status: res.statusCode} : {unanswered: true}),
      ms: Math.round((performance.now() - started) * 10) / 10,
    }),
  )
  return entry
}
