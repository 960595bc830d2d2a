import {createHash} from 'node:crypto'
import {createServer, type IncomingMessage, type Server} from 'node:http'
import type {AddressInfo} from 'node:net'

/** How the next answers go wrong; `normal` answers as an OpenAI embeddings endpoint does. */
export type ServerMode =
  | {kind: 'normal'}
  /** Answers, but only after this many milliseconds. */
  | {kind: 'delay'; ms: number}
  /** This status, with `{error: {message}}` as OpenAI sends it. */
  | {kind: 'status'; status: number; message: string}
  /** One vector fewer than texts. */
  | {kind: 'wrong-count'}
  /** Vectors of this many dimensions instead of 64. */
  | {kind: 'dimension'; dimensions: number}
  /** The first vector of every answer of the usual length but of differing lengths within it. */
  | {kind: 'ragged'}
  /** A NaN in the first vector (sent as `null`, JSON having no NaN, and as the bare word, which some servers write). */
  | {kind: 'nan'; bare: boolean}
  /** An HTML page with status 200, as a proxy or a wrong path gives. */
  | {kind: 'not-json'}
  /** The answer's items in reverse order, each with its index, as the specification allows. */
  | {kind: 'reversed'}

/** A request as the server got it. */
export interface SeenRequest {
  path: string
  authorization: string | undefined
  body: {model?: unknown; input?: unknown}
}

/** A loopback server answering `POST /v1/embeddings` with vectors derived from the words of each text. */
export interface EmbeddingServer {
  /** The base URL to configure, `http://127.0.0.1:<port>/v1`. */
  url: string
  /** Every request, oldest first. */
  seen: SeenRequest[]
  mode: ServerMode
  close(): Promise<void>
}

export const DIMENSIONS = 64

/**
 * Words that stand for one idea in {@link bagOfWords}: a tiny model of meaning, so that a test can
 * ask for "coffee" and expect a fact about espresso that shares no word with it.
 */
const CONCEPTS: Record<string, string> = {
  espresso: 'coffee',
  latte: 'coffee',
  cappuccino: 'coffee',
  bicycle: 'bike',
  cycles: 'bike',
  cycling: 'bike',
  kubernetes: 'k8s',
  secrets: 'passwords',
  credentials: 'passwords',
}

/**
 * A hashed bag of words: each lower-cased word (or the idea it stands for, {@link CONCEPTS})
 * adds 1 to one of `dimensions` slots. Deterministic, and texts sharing words or ideas get
 * closer vectors, which is all the tests need of a model.
 */
export function bagOfWords(text: string, dimensions = DIMENSIONS): number[] {
  const vector = new Array<number>(dimensions).fill(0)
  for (const found of text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []) {
    const word = CONCEPTS[found] ?? found
    const slot = createHash('sha256').update(word).digest().readUInt32BE(0) % dimensions
    vector[slot]! += 1
  }
  // A text without words still gets a direction of its own.
  if (dimensions > 0 && !vector.some((x) => x !== 0)) vector[0] = 1
  return vector
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = []
  for await (const chunk of req) chunks.push(chunk as Buffer)
  return Buffer.concat(chunks).toString('utf8')
}

function answer(mode: ServerMode, texts: string[]): {status: number; type: string; body: string} {
  const json = (value: unknown, status = 200) => ({status, type: 'application/json', body: JSON.stringify(value)})
  if (mode.kind === 'status') return json({error: {message: mode.message, type: 'invalid_request_error'}}, mode.status)
  if (mode.kind === 'not-json') return {status: 200, type: 'text/html', body: '<html><body>Welcome</body></html>'}
  const dimensions = mode.kind === 'dimension' ? mode.dimensions : DIMENSIONS
  let data = texts.map((text, index) => ({object: 'embedding', index, embedding: bagOfWords(text, dimensions)}))
  if (mode.kind === 'wrong-count') data = data.slice(1)
  if (mode.kind === 'ragged' && data.length > 0) data[0]!.embedding = data[0]!.embedding.slice(1)
  if (mode.kind === 'reversed') data.reverse()
  if (mode.kind === 'nan' && data.length > 0) {
    if (mode.bare) {
      const body = JSON.stringify({object: 'list', data}).replace(/"embedding":\[[^,\]]+/, '"embedding":[NaN')
      return {status: 200, type: 'application/json', body}
    }
    ;(data[0]!.embedding as (number | null)[])[0] = null
  }
  return json({object: 'list', data, model: 'bag-of-words', usage: {prompt_tokens: 0, total_tokens: 0}})
}

/** Starts the server on 127.0.0.1 at a free port. */
export async function startEmbeddingServer(): Promise<EmbeddingServer> {
  const seen: SeenRequest[] = []
  const state: EmbeddingServer = {url: '', seen, mode: {kind: 'normal'}, close: async () => {}}
  const server: Server = createServer((req, res) => {
    void (async () => {
      const raw = await readBody(req)
      let body: SeenRequest['body'] = {}
      try {
        body = JSON.parse(raw) as SeenRequest['body']
      } catch {
        // Recorded as an empty body; the test reads it.
      }
      seen.push({path: req.url ?? '', authorization: req.headers.authorization, body})
      const mode = state.mode
      if (req.method !== 'POST' || req.url !== '/v1/embeddings') {
        res.writeHead(404, {'content-type': 'application/json'})
        res.end(JSON.stringify({error: {message: `no route ${req.method} ${req.url}`}}))
        return
      }
      if (mode.kind === 'delay') await new Promise((resolve) => setTimeout(resolve, mode.ms))
      const texts = Array.isArray(body.input) ? body.input.map(String) : []
      const {status, type, body: out} = answer(mode, texts)
      if (res.destroyed) return
      res.writeHead(status, {'content-type': type})
      res.end(out)
    })()
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const {port} = server.address() as AddressInfo
  state.url = `http://127.0.0.1:${port}/v1`
  state.close = () =>
    new Promise((resolve) => {
      server.closeAllConnections()
      server.close(() => resolve())
    })
  return state
}
