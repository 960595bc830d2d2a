import {closeSync, constants, fstatSync, openSync, readFileSync} from 'node:fs'
import {homedir} from 'node:os'
import {isAbsolute, join} from 'node:path'

import {EmbedderError, unitVector, type Embedder} from './embedder.js'

/** Where an OpenAI-compatible embeddings endpoint is and what to ask it for. */
export interface EndpointEmbedderOptions {
  /**
   * The API's base, as its documentation gives it (`http://localhost:11434/v1` for Ollama,
   * `https://api.openai.com/v1`); `/embeddings` is added unless the URL already ends with it.
   */
  url: string
  /** The model the endpoint embeds with ("nomic-embed-text", "text-embedding-3-small"). */
  model: string
  /** Sent as `Authorization: Bearer <key>` when given; never put in a message or the id. See {@link embedderKey}. */
  key?: string
  /** How long one request may take, answer included, before it fails (default 10,000 ms). */
  timeoutMs?: number
  /** Texts sent in one request (default 32); a longer list is sent in several, in order. */
  batchSize?: number
}

/** What an OpenAI-compatible endpoint answers, as far as it is read here. */
interface EmbeddingsAnswer {
  data: {embedding: unknown; index?: unknown}[]
}

/**
 * Vectors from an OpenAI-compatible embeddings endpoint: Ollama, LM Studio, llama.cpp's server,
 * vLLM, OpenAI. `POST {url}/embeddings` with `{model, input: [texts]}`, reading
 * `data[i].embedding` in the order of `data[i].index`.
 *
 * Every failure is an {@link EmbedderError} said for a person, naming the endpoint by its origin
 * and path only (a URL's user, password and query may hold secrets). 'load' when the settings
 * are wrong (not an http(s) URL, no model, 401, 403 or 404, a model whose vectors changed
 * length): retrying will not help until someone changes them. 'call' for everything that may
 * pass: the server down, a timeout, a 5xx, an answer that does not hold one vector per text.
 */
export class EndpointEmbedder implements Embedder {
  /** The model, not the URL: the same model behind another address gives the same vectors. */
  readonly id: string
  private readonly endpoint: URL | undefined
  /** What messages call the endpoint: origin and path, nothing that could be a secret. */
  private readonly shown: string
  private readonly model: string
  private readonly key: string | undefined
  private readonly timeoutMs: number
  private readonly batchSize: number
  /** Why the options cannot work, found by the constructor, which does not throw. */
  private readonly unusable: EmbedderError | undefined
  /** The length of the first vectors seen: a model whose vectors change length is another model. */
  private dimension: number | undefined
  /** Aborts the requests under way when the embedder is closed. */
  private readonly closing = new AbortController()

  constructor(options: EndpointEmbedderOptions) {
    this.id = endpointId(options.model)
    this.model = options.model
    this.key = options.key === '' ? undefined : options.key
    this.timeoutMs = options.timeoutMs ?? 10_000
    this.batchSize = Math.max(1, Math.floor(options.batchSize ?? 32))
    const parsed = endpointUrl(options.url)
    this.endpoint = parsed instanceof URL ? parsed : undefined
    this.shown = parsed instanceof URL ? `${parsed.origin}${parsed.pathname}` : 'the embeddings endpoint'
    if (!(parsed instanceof URL)) this.unusable = parsed
    else if (options.model.trim() === '')
      this.unusable = new EmbedderError(`no model named for the embeddings endpoint ${this.shown}`, 'load')
  }

  async embed(texts: readonly string[]): Promise<Float32Array[]> {
    if (this.unusable !== undefined) throw this.unusable
    if (this.closing.signal.aborted) throw new EmbedderError('the embeddings endpoint was closed', 'load')
    const vectors: Float32Array[] = []
    for (let start = 0; start < texts.length; start += this.batchSize) {
      vectors.push(...(await this.embedBatch(texts.slice(start, start + this.batchSize))))
    }
    return vectors
  }

  async close(): Promise<void> {
    this.closing.abort()
  }

  private async embedBatch(texts: string[]): Promise<Float32Array[]> {
    const headers: Record<string, string> = {'content-type': 'application/json', accept: 'application/json'}
    if (this.key !== undefined) headers.authorization = `Bearer ${this.key}`
    const signal = AbortSignal.any([AbortSignal.timeout(this.timeoutMs), this.closing.signal])
    let status: number
    let statusText: string
    let body: string
    try {
      const response = await fetch(this.endpoint!, {
        method: 'POST',
        headers,
        body: JSON.stringify({model: this.model, input: texts}),
        signal,
      })
      status = response.status
      statusText = response.statusText
      body = await response.text()
    } catch (error) {
      throw this.unreachable(error)
    }
    if (status >= 400) throw this.refused(status, statusText, body)
    let answer: unknown
    try {
      answer = JSON.parse(body)
    } catch {
      throw new EmbedderError(
        `the embeddings endpoint ${this.shown} answered something that is not JSON (${describeStart(body)}): is the URL that of an OpenAI-compatible API, such as http://localhost:11434/v1?`,
        'call',
      )
    }
    return this.vectorsOf(answer, texts.length)
  }

  /** The request never got an answer: closed, timed out, or no connection. */
  private unreachable(error: unknown): EmbedderError {
    if (this.closing.signal.aborted)
      return new EmbedderError('the embeddings endpoint was closed during the call', 'call')
    const name = error instanceof Error ? error.name : ''
    if (name === 'TimeoutError' || name === 'AbortError')
      return new EmbedderError(
        `the embeddings endpoint ${this.shown} did not answer within ${this.timeoutMs} ms: is the model still loading, or the server busy?`,
        'call',
      )
    const code = causeCode(error)
    if (code === 'ECONNREFUSED')
      return new EmbedderError(
        `the embeddings endpoint ${this.shown} refused the connection: is its server running?`,
        'call',
      )
    if (code === 'ENOTFOUND' || code === 'EAI_AGAIN')
      return new EmbedderError(
        `the host of the embeddings endpoint ${this.shown} was not found (${code}): check the URL and the network`,
        'call',
      )
    const detail = code ?? (error instanceof Error ? redact(error.message, this.key) : String(error))
    return new EmbedderError(`the embeddings endpoint ${this.shown} could not be reached (${detail})`, 'call')
  }

  /** The endpoint answered with an HTTP error. */
  private refused(status: number, statusText: string, body: string): EmbedderError {
    const said = errorMessageOf(body)
    const text = said === undefined ? '' : `: ${truncate(redact(said, this.key), 200)}`
    const hint =
      status === 401 || status === 403
        ? ` (check the key: MEM_EMBED_KEY or MEM_EMBED_KEY_FILE${this.key === undefined ? ', none is set' : ''})`
        : status === 404
          ? ` (check the URL and that the model "${this.model}" exists there)`
          : ''
    const kind = status === 401 || status === 403 || status === 404 ? 'load' : 'call'
    return new EmbedderError(
      `the embeddings endpoint ${this.shown} answered ${status}${statusText ? ` ${statusText}` : ''}${text}${hint}`,
      kind,
    )
  }

  /** The vectors of a JSON answer, checked, in the order of the texts, each of unit length. */
  private vectorsOf(answer: unknown, count: number): Float32Array[] {
    const wrong = (what: string, kind: 'load' | 'call' = 'call') =>
      new EmbedderError(`the embeddings endpoint ${this.shown} answered ${what}`, kind)
    if (!isAnswer(answer)) throw wrong('JSON without a "data" list of embeddings')
    if (answer.data.length !== count) throw wrong(`${answer.data.length} vectors for ${count} texts`)
    const ordered: (Float32Array | undefined)[] = new Array(count)
    let length: number | undefined
    for (const [position, item] of answer.data.entries()) {
      const index = item.index === undefined ? position : item.index
      if (typeof index !== 'number' || !Number.isInteger(index) || index < 0 || index >= count || ordered[index])
        throw wrong(`an embedding with the index ${JSON.stringify(index)} among ${count}`)
      const values = item.embedding
      if (!Array.isArray(values)) throw wrong('an embedding that is not a list of numbers')
      if (values.length === 0) throw wrong('an empty embedding')
      if (!values.every((x) => typeof x === 'number' && Number.isFinite(x)))
        throw wrong('an embedding holding something other than finite numbers')
      length ??= values.length
      if (values.length !== length) throw wrong(`vectors of differing lengths (${length} and ${values.length})`)
      const vector = unitVector(values)
      if (vector === undefined) throw wrong('an embedding of all zeros')
      ordered[index] = vector
    }
    if (length !== undefined) {
      this.dimension ??= length
      if (length !== this.dimension)
        throw wrong(
          `vectors of ${length} dimensions where it gave ${this.dimension} before: has the model "${this.model}" changed?`,
          'load',
        )
    }
    return ordered as Float32Array[]
  }
}

/** The URL to POST to, or why there is none. */
function endpointUrl(given: string): URL | EmbedderError {
  let url: URL
  try {
    url = new URL(given)
  } catch {
    return new EmbedderError(
      'the embeddings endpoint URL is not a URL: give one such as http://localhost:11434/v1',
      'load',
    )
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    return new EmbedderError(
      `the embeddings endpoint URL must start with http:// or https://, not ${url.protocol}//`,
      'load',
    )
  const path = url.pathname.replace(/\/+$/, '')
  url.pathname = path.endsWith('/embeddings') ? path : `${path}/embeddings`
  return url
}

function isAnswer(answer: unknown): answer is EmbeddingsAnswer {
  if (typeof answer !== 'object' || answer === null) return false
  const data = (answer as {data?: unknown}).data
  return Array.isArray(data) && data.every((item) => typeof item === 'object' && item !== null)
}

/** The code Node's fetch keeps on the cause of a network failure (ECONNREFUSED, ENOTFOUND…). */
function causeCode(error: unknown): string | undefined {
  for (let e: unknown = error, depth = 0; e instanceof Error && depth < 4; e = e.cause, depth++) {
    const code = (e as {code?: unknown}).code
    if (typeof code === 'string' && !code.startsWith('ERR_')) return code
  }
  return undefined
}

/** The message of an error answer: OpenAI's `{error: {message}}`, or `{error: "..."}` as Ollama says it. */
function errorMessageOf(body: string): string | undefined {
  try {
    const error = (JSON.parse(body) as {error?: unknown}).error
    if (typeof error === 'string') return error
    const message = (error as {message?: unknown} | undefined)?.message
    return typeof message === 'string' ? message : undefined
  } catch {
    return undefined
  }
}

/** An endpoint that echoes the key back in its error must not make mem print it. */
function redact(text: string, key: string | undefined): string {
  return key === undefined ? text : text.split(key).join('[key]')
}

function truncate(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`
}

function describeStart(body: string): string {
  if (body.trim() === '') return 'an empty body'
  return `it begins ${JSON.stringify(truncate(body.trim(), 40))}`
}

/** The id of an endpoint's vectors: the model's, not the URL's (the same model elsewhere gives the same vectors). */
export function endpointId(model: string): string {
  return `endpoint:${model}`
}

/**
 * The key for the embeddings endpoint: `MEM_EMBED_KEY`, or the contents of the file
 * `MEM_EMBED_KEY_FILE` names (a leading `~/` is `home`, the user's home folder unless given;
 * other paths must be absolute, since an MCP server's working folder is anyone's guess).
 * Undefined when neither is set: local servers such as Ollama want none.
 *
 * The file is read only if it is a regular file, not a link, owned by this user and readable by
 * no one else (mode 0600 or stricter), as ssh treats a private key; otherwise this throws an
 * {@link EmbedderError} ('load') saying what is wrong and how to fix it.
 */
export function embedderKey(env: NodeJS.ProcessEnv, home: string = homedir()): string | undefined {
  const inline = env.MEM_EMBED_KEY
  const named = env.MEM_EMBED_KEY_FILE
  const hasInline = inline !== undefined && inline.trim() !== ''
  const hasFile = named !== undefined && named.trim() !== ''
  if (hasInline && hasFile)
    throw new EmbedderError(
      'both MEM_EMBED_KEY and MEM_EMBED_KEY_FILE are set: unset one, so that it is clear which key is sent',
      'load',
    )
  if (hasInline) return inline.trim()
  if (!hasFile) return undefined
  const file = named.startsWith('~/') ? join(home, named.slice(2)) : named
  if (!isAbsolute(file))
    throw new EmbedderError(`MEM_EMBED_KEY_FILE must be an absolute path (or start with ~/), not ${named}`, 'load')
  return readKeyFile(file)
}

function readKeyFile(file: string): string {
  let fd: number
  try {
    // O_NOFOLLOW: a link is refused by the open itself, so it cannot be swapped in after a check.
    fd = openSync(file, constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0))
  } catch (error) {
    const code = (error as {code?: unknown}).code
    if (code === 'ELOOP')
      throw new EmbedderError(
        `the key file ${file} (MEM_EMBED_KEY_FILE) is a symbolic link: name the file itself`,
        'load',
      )
    if (code === 'ENOENT') throw new EmbedderError(`the key file ${file} (MEM_EMBED_KEY_FILE) does not exist`, 'load')
    throw new EmbedderError(`the key file ${file} (MEM_EMBED_KEY_FILE) could not be opened (${String(code)})`, 'load')
  }
  try {
    const st = fstatSync(fd)
    if (!st.isFile()) throw new EmbedderError(`the key file ${file} (MEM_EMBED_KEY_FILE) is not a regular file`, 'load')
    if (process.platform !== 'win32') {
      const uid = process.getuid?.()
      if (uid !== undefined && st.uid !== uid)
        throw new EmbedderError(
          `the key file ${file} (MEM_EMBED_KEY_FILE) belongs to another user (uid ${st.uid}): it must be yours (chown it, or copy it into a file of your own with mode 600)`,
          'load',
        )
      if ((st.mode & 0o077) !== 0) {
        const mode = (st.mode & 0o777).toString(8).padStart(4, '0')
        throw new EmbedderError(
          `the key file ${file} (MEM_EMBED_KEY_FILE) has mode ${mode}, so others may read it: run chmod 600 ${file}`,
          'load',
        )
      }
    }
    const key = readFileSync(fd, 'utf8').trim()
    if (key === '') throw new EmbedderError(`the key file ${file} (MEM_EMBED_KEY_FILE) is empty`, 'load')
    return key
  } finally {
    closeSync(fd)
  }
}
