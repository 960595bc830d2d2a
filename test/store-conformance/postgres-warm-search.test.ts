import assert from 'node:assert/strict'

import {PostgresStore} from '../../src/store/postgres/postgres-store.js'
import {freshDatabase, sql} from '../helpers/postgres.js'

/**
 * A server's search of an agent whose index it holds reads the hits and the agent's change
 * counter in one statement (ADR 0006). What another server changed before that search began
 * must show in it: never a fact replaced or deleted there, always a fact added there.
 */
describe('PostgreSQL: a warm search sees what another server changed', function () {
  this.timeout(60_000)
  let url: string
  let one: PostgresStore
  let two: PostgresStore

  beforeEach(async () => {
    url = await freshDatabase()
    one = await PostgresStore.open(url)
    two = await PostgresStore.open(url)
  })
  afterEach(async () => {
    await one.close()
    await two.close()
  })

  const contents = async (store: PostgresStore, text: string): Promise<string[]> =>
    (await store.searchFacts('team', {text, limit: 10})).hits.map((h) => h.fact.content)

  it('a fact deleted or replaced on another server is not served, its replacement is', async () => {
    const kept = await one.addFact('team', {content: 'The staging cluster runs in Frankfurt', tags: []})
    const doomed = await one.addFact('team', {content: 'The staging cluster password rotates monthly', tags: []})
    const replaced = await one.addFact('team', {content: 'The staging cluster has three nodes', tags: []})
    // Both servers hold the index now.
    assert.equal((await contents(one, 'staging cluster')).length, 3)
    assert.equal((await contents(two, 'staging cluster')).length, 3)
    assert.equal(one.cacheUse().agents, 1)

    await two.deleteFact('team', doomed.id)
    assert.deepEqual((await contents(one, 'staging cluster')).sort(), [kept.content, replaced.content].sort())

    await two.supersede('team', [replaced.id], {content: 'The staging cluster has five nodes', tags: []})
    const after = await contents(one, 'staging cluster')
    assert.deepEqual(after.sort(), [kept.content, 'The staging cluster has five nodes'].sort())
    // A hit's record is the one the database holds now, not the one the index was made from.
    const [hit] = (await one.searchFacts('team', {text: 'Frankfurt', limit: 5})).hits
    assert.deepEqual(hit?.fact, await two.getFact('team', kept.id))
  })

  it('a fact added on another server is found by the next search', async () => {
    await one.addFact('team', {content: 'Deploys go out on Tuesdays', tags: []})
    assert.deepEqual(await contents(one, 'zanzibar'), [])
    await two.addFact('team', {content: 'The zanzibar project ships in March', tags: []})
    assert.deepEqual(await contents(one, 'zanzibar'), ['The zanzibar project ships in March'])
  })

  it('a database restored to an earlier state is searched as it is now', async () => {
    await one.addFact('team', {content: 'The old router lives in the attic', tags: []})
    await one.addFact('team', {content: 'The old printer lives in the basement', tags: []})
    assert.equal((await contents(one, 'old')).length, 2)
    // As a restore of an earlier backup would: the agent's counter goes back, its facts differ.
    await sql(url, 'TRUNCATE mem_vectors, mem_search_index, mem_facts, mem_checkpoints, mem_agents')
    await two.addFact('team', {content: 'The new router lives in the hallway', tags: []})
    assert.deepEqual(await contents(one, 'router'), ['The new router lives in the hallway'])
  })
})
