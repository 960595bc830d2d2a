import assert from 'node:assert/strict'
import {existsSync, openSync, readFileSync, readSync, writeSync, closeSync, statSync} from 'node:fs'
import {join} from 'node:path'

import {appendVectors, readVectors} from '../../src/meaning/vector-file.js'
import {startEmbeddingServer, type EmbeddingServer} from '../helpers/embedding-server.js'
import {memAsync, tempHome} from '../helpers/mem.js'

interface Report {
  ok: boolean
  problems: {kind: string; problem: string; fix: string; fixed: boolean}[]
}

/** mem doctor on the vectors of meaning: damaged records, vectors of other content, another model's file. */
describe('mem doctor checks the vectors of meaning', function () {
  this.timeout(60_000)
  let server: EmbeddingServer
  let home: string
  let cleanup: () => void
  const vectors = () => join(home, 'agents', 'default', 'cache', 'vectors.bin')

  before(async () => {
    server = await startEmbeddingServer()
  })
  after(async () => {
    await server.close()
  })
  beforeEach(async () => {
    ;({home, cleanup} = tempHome())
    const run = (args: string[]) => memAsync(home, args)
    assert.equal((await run(['meaning', 'on', '--endpoint', server.url, '--model', 'bag-of-words'])).code, 0)
    for (const content of ['Bob drinks a double espresso every morning', 'Carol rides her bicycle to the office'])
      assert.equal((await run(['add', content])).code, 0)
    assert.equal((await run(['embed'])).code, 0)
  })
  afterEach(() => cleanup())

  const doctor = async (...flags: string[]) => {
    const r = await memAsync(home, ['doctor', '--json', ...flags])
    return {code: r.code, report: JSON.parse(r.stdout) as Report}
  }

  it('finds nothing wrong with vectors as mem made them', async () => {
    const {code, report} = await doctor()
    assert.equal(code, 0)
    assert.deepEqual(report.problems, [])
  })

  it('a record that fails its checksum: reported, and --fix rewrites the file with the good ones', async () => {
    // Flip one byte of the last record's vector (the file's last bytes are its id, digest and checksum).
    const size = statSync(vectors()).size
    const fd = openSync(vectors(), 'r+')
    const byte = Buffer.alloc(1)
    readSync(fd, byte, 0, 1, size - 60)
    writeSync(fd, Buffer.from([byte[0]! ^ 0xff]), 0, 1, size - 60)
    closeSync(fd)
    const found = await doctor()
    assert.equal(found.code, 1)
    assert.deepEqual(
      found.report.problems.map((p) => [p.kind, p.fixed]),
      [['vectors', false]],
    )
    assert.match(found.report.problems[0]!.problem, /1 damaged record \(failed checksum\)/)
    const fixed = await doctor('--fix')
    assert.equal(fixed.code, 0)
    assert.equal(readVectors(vectors(), 'endpoint:bag-of-words', undefined).damaged, 0)
    assert.deepEqual((await doctor()).report.problems, [])
    // The fact that lost its vector waits for it again, and mem embed makes it.
    const embedded = await memAsync(home, ['embed', '--json'])
    assert.deepEqual(JSON.parse(embedded.stdout).agents[0], {agent_id: 'default', embedded: 1, pending: 0})
  })

  it('a vector made from other content than its fact holds: reported, and --fix drops it', async () => {
    const [record] = readVectors(vectors(), 'endpoint:bag-of-words', undefined).records
    assert.ok(
      appendVectors(vectors(), 'endpoint:bag-of-words', 64, [
        {...record!, vector: record!.vector, digest: 'not-the-content'},
      ]),
    )
    const found = await doctor()
    assert.match(found.report.problems[0]!.problem, /1 vector made from other content than the fact holds now/)
    assert.equal((await doctor('--fix')).code, 0)
    assert.deepEqual((await doctor()).report.problems, [])
    assert.equal(statSync(vectors()).mode & 0o777, 0o600)
  })

  it("another model's vectors, once meaning uses another: reported, and --fix removes them", async () => {
    assert.equal((await memAsync(home, ['meaning', 'on', '--endpoint', server.url, '--model', 'other-model'])).code, 0)
    const found = await doctor()
    assert.equal(found.code, 1)
    assert.match(
      found.report.problems[0]!.problem,
      /the vectors are endpoint:bag-of-words's, and meaning now uses endpoint:other-model/,
    )
    assert.equal((await doctor('--fix')).code, 0)
    assert.equal(existsSync(vectors()), false)
    // Nothing a user stored is touched.
    assert.match(readFileSync(join(home, 'meaning.json'), 'utf8'), /other-model/)
    const listed = await memAsync(home, ['list', '--json'])
    assert.equal(JSON.parse(listed.stdout).facts.length, 2)
  })
})
