import assert from 'node:assert/strict'
import {readFileSync} from 'node:fs'
import {join} from 'node:path'

import {connectMcp} from '../helpers/mcp.js'
import {mem, memAsync, tempHome} from '../helpers/mem.js'
import {freshDatabase, testCluster} from '../helpers/postgres.js'

/** What an add over MCP or the CLI answered: the new fact's id, or the error text. */
type Answer = {id: string} | {error: string}

const RETRYABLE =
  /(could not reach|lost the connection to) PostgreSQL at postgres:\/\/\/mem_test_\w+\?host=[^ ]+ .*(nothing was (read or )?saved|may or may not be saved).*try again/s

describe('mem on PostgreSQL when the database restarts', function () {
  this.timeout(180_000)
  let temp: ReturnType<typeof tempHome>
  beforeEach(() => {
    temp = tempHome()
  })
  afterEach(() => temp.cleanup())

  it('fails the calls in flight with a retryable error, loses nothing acknowledged, and serves again', async () => {
    const url = await freshDatabase()
    const cluster = testCluster()
    assert.ok(
      cluster,
      'this test restarts the cluster test/helpers/postgres.ts starts; unset MEM_TEST_POSTGRES to run it',
    )
    const env = {MEM_STORE: url}
    const server = await connectMcp(temp.home, {env})
    try {
      const answers: Answer[] = []
      let stop = false
      const viaMcp = async (n: number) => {
        for (let i = 0; !stop; i++) {
          const r = await server.call('memory_add', {content: `server loop ${n} fact ${i}`})
          const text = (r.content[0] as {text: string}).text
          answers.push(r.isError ? {error: text} : {id: (r.structuredContent as {fact_id: string}).fact_id})
        }
      }
      const viaCli = async () => {
        for (let i = 0; !stop; i++) {
          const r = await memAsync(temp.home, ['add', '--json', `cli loop fact ${i}`], {env})
          const out = JSON.parse(r.stdout) as {fact_id?: string; error?: {message: string}}
          answers.push(r.code === 0 ? {id: out.fact_id!} : {error: out.error!.message})
        }
      }
      const loops = [viaMcp(0), viaMcp(1), viaCli()]
      await new Promise((r) => setTimeout(r, 1500))
      cluster.stop()
      await new Promise((r) => setTimeout(r, 1500))
      cluster.start()
      await new Promise((r) => setTimeout(r, 2000))
      stop = true
      await Promise.all(loops)

      const acknowledged = answers.flatMap((a) => ('id' in a ? [a.id] : []))
      const errors = answers.flatMap((a) => ('error' in a ? [a.error] : []))
      assert.ok(errors.length > 0, 'the restart failed no call: it did not happen during the load')
      for (const error of errors) assert.match(error, RETRYABLE)
      for (const error of errors) assert.doesNotMatch(error, /password/)

      // The same server serves again, without a restart of its own.
      const after = await server.call('memory_add', {content: 'after the restart'})
      assert.notEqual(after.isError, true, JSON.stringify(after.content))
      acknowledged.push((after.structuredContent as {fact_id: string}).fact_id)

      const listed = JSON.parse(mem(temp.home, ['list', '--json', '--limit', '10000'], {env}).stdout) as {
        facts: {id: string}[]
      }
      const stored = new Set(listed.facts.map((f) => f.id))
      const lost = acknowledged.filter((id) => !stored.has(id))
      assert.deepEqual(lost, [], `${lost.length} acknowledged writes lost`)
    } finally {
      await server.close()
    }
  })
})

describe('moving a home into PostgreSQL and back (mem export --all, mem import)', function () {
  this.timeout(120_000)

  it('keeps ids, times, threads, history and checkpoints', async () => {
    const temp = tempHome()
    try {
      const files = {MEM_STORE: undefined}
      const run = (args: string[], env: Record<string, string | undefined>, input?: string) => {
        const r = mem(temp.home, args, {env, input})
        assert.equal(r.code, 0, r.stderr)
        return r.stdout
      }
      run(['add', 'alpha', '--agent', 'a', '--tag', 'x'], files)
      run(['add', 'a turn', '--agent', 'a', '--thread', 'chat'], files)
      const id = (JSON.parse(run(['add', 'beta', '--agent', 'b', '--json'], files)) as {fact_id: string}).fact_id
      run(['reflect', 'update', '--fact', id, '--content', 'beta v2', '--agent', 'b'], files)
      run(['save', '--agent', 'a', '--state', '{"z":1,"a":[1,2]}', '--label', 'cp'], files)
      const body = (text: string) => text.split('\n').slice(1).join('\n')
      const fromFiles = run(['export', '--all'], files)

      const db = {MEM_STORE: await freshDatabase()}
      const file = join(temp.home, 'all.jsonl')
      run(['export', '--all', '-o', file], files)
      run(['import', file], db)
      const fromDb = run(['export', '--all'], db)
      assert.equal(body(fromDb), body(fromFiles))

      // And back, into an empty home.
      const back = tempHome()
      try {
        const r = mem(back.home, ['import', '-'], {env: files, input: readFileSync(file, 'utf8')})
        assert.equal(r.code, 0, r.stderr)
        assert.equal(body(mem(back.home, ['export', '--all'], {env: files}).stdout), body(fromDb))
      } finally {
        back.cleanup()
      }
    } finally {
      temp.cleanup()
    }
  })

  it('mem store copy: into PostgreSQL and back in one step, and again after changes', async () => {
    const temp = tempHome()
    const back = tempHome()
    try {
      const files = {MEM_STORE: undefined}
      const run = (home: string, args: string[], env: Record<string, string | undefined>) => {
        const r = mem(home, args, {env})
        assert.equal(r.code, 0, r.stderr)
        return r
      }
      run(temp.home, ['add', 'alpha', '--agent', 'a', '--tag', 'x'], files)
      run(temp.home, ['add', 'a turn', '--agent', 'a', '--thread', 'chat'], files)
      const id = (
        JSON.parse(run(temp.home, ['add', 'beta', '--agent', 'b', '--json'], files).stdout) as {fact_id: string}
      ).fact_id
      run(temp.home, ['save', '--agent', 'a', '--state', '{"z":1}'], files)
      const url = await freshDatabase()
      const body = (text: string) => text.split('\n').slice(1).join('\n')

      const first = run(temp.home, ['store', 'copy', '--to', url, '--json'], files)
      assert.deepEqual(JSON.parse(first.stdout), {to: url, agents: 2, facts: 3, checkpoints: 1, marked: 0})
      assert.equal(
        first.stderr,
        '1/2 a: 2 facts and 1 checkpoint added, 0 marked\n2/2 b: 1 fact and 0 checkpoints added, 0 marked\n',
      )
      const exportOf = (home: string, env: Record<string, string | undefined>) =>
        body(run(home, ['export', '--all'], env).stdout)
      assert.equal(exportOf(temp.home, {MEM_STORE: url}), exportOf(temp.home, files))

      // Changes made in the files since: a new fact and a replaced one reach the copy.
      run(temp.home, ['reflect', 'update', '--agent', 'b', '--fact', id, '--content', 'beta v2'], files)
      const again = run(temp.home, ['store', 'copy', '--to', url, '--json'], files)
      assert.deepEqual(JSON.parse(again.stdout), {to: url, agents: 2, facts: 1, checkpoints: 0, marked: 1})
      assert.equal(exportOf(temp.home, {MEM_STORE: url}), exportOf(temp.home, files))

      // And back into an empty folder, from the database.
      const out = run(temp.home, ['store', 'copy', '--to', back.home], {MEM_STORE: url})
      assert.equal(
        out.stdout,
        `Copied 2 agents to ${back.home}: 4 facts and 1 checkpoint added, 0 facts marked as replaced or deleted here.\n`,
      )
      assert.equal(exportOf(back.home, files), exportOf(temp.home, files))

      const same = mem(temp.home, ['store', 'copy', '--to', url], {env: {MEM_STORE: url}})
      assert.equal(same.code, 2)
      assert.match(same.stderr, /--to names the store in use/)
    } finally {
      temp.cleanup()
      back.cleanup()
    }
  })
})
