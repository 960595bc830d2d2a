import assert from 'node:assert/strict'

import {startEmbeddingServer, type EmbeddingServer} from '../helpers/embedding-server.js'
import {memAsync, tempHome} from '../helpers/mem.js'
import {freshDatabase, sql} from '../helpers/postgres.js'

interface SearchPayload {
  facts: {content: string; by_meaning?: true}[]
  meaning?: {used: boolean; pending: number; why?: string}
}

/** Meaning on a team store: the vectors live in mem_vectors, where every process of the team reads them. */
describe('meaning on PostgreSQL', function () {
  this.timeout(60_000)
  let server: EmbeddingServer
  let temp: {home: string; cleanup: () => void}

  before(async () => {
    server = await startEmbeddingServer()
    temp = tempHome()
  })
  after(async () => {
    await server.close()
    temp.cleanup()
  })

  // Never spawnSync: the endpoint answers from this very process.
  const run = (url: string, args: string[]) => memAsync(temp.home, args, {env: {MEM_STORE: url, MEM_MEANING: 'on'}})

  it('keeps the vectors in mem_vectors, by embedder and content digest, and finds facts by meaning from another process', async () => {
    const url = await freshDatabase()
    const on = await memAsync(temp.home, ['meaning', 'on', '--endpoint', server.url, '--model', 'bag-of-words'])
    assert.equal(on.code, 0, on.stderr)
    // A read with meaning on still creates nothing in a database without mem's tables.
    const empty = await run(url, ['search', 'coffee', '--json'])
    assert.equal(empty.code, 0, empty.stderr)
    assert.deepEqual(JSON.parse(empty.stdout).meaning, {used: false, pending: 0})
    assert.deepEqual(await sql(url, "SELECT to_regclass('mem_vectors') IS NULL AS absent"), [{absent: true}])

    for (const content of ['Bob drinks a double espresso every morning', 'The billing service runs on PostgreSQL 16'])
      assert.equal((await run(url, ['add', content])).code, 0)
    const embedded = await run(url, ['embed', '--json'])
    assert.equal(embedded.code, 0, embedded.stderr)
    assert.deepEqual(JSON.parse(embedded.stdout).agents, [{agent_id: 'default', embedded: 2, pending: 0}])
    const rows = await sql<{embedder: string; digest: string; size: number}>(
      url,
      'SELECT embedder, digest, octet_length(vector) AS size FROM mem_vectors ORDER BY seq',
    )
    assert.equal(rows.length, 2)
    for (const row of rows) {
      assert.equal(row.embedder, 'endpoint:bag-of-words')
      assert.match(row.digest, /^[\w-]{16}$/)
      // 64 int8 components and a float32 scale.
      assert.equal(row.size, 68)
    }

    const found = JSON.parse((await run(url, ['search', 'coffee', '--json'])).stdout) as SearchPayload
    assert.deepEqual(found.meaning, {used: true, pending: 0})
    assert.deepEqual(
      found.facts.map((f) => [f.content, f.by_meaning]),
      [['Bob drinks a double espresso every morning', true]],
    )
  })
})
