import assert from 'node:assert/strict'
import {spawn} from 'node:child_process'
import {chmodSync, cpSync} from 'node:fs'
import {join} from 'node:path'
import {setTimeout as sleep} from 'node:timers/promises'

import {connectHttp, createToken, startHttpServe, type HttpServe} from '../helpers/http.js'
import type {McpSession} from '../helpers/mcp.js'
import {BIN, childEnv, mem, tempHome, type RunResult} from '../helpers/mem.js'
import {freshDatabase, sql} from '../helpers/postgres.js'
import {seeded} from '../helpers/seed.js'

const SERVERS = 3
const LANES = 3
const LOOPS_PER_LANE = 2
const CLI_WRITERS = 2
const KILLS = 6
/** Bounds on every request loop, so a load that fails still ends by itself: far more than a passing run makes. */
const MAX_CALLS_PER_LOOP = 5_000

/** One host: its own MEM_HOME (tokens only) and the `mem mcp serve --http` running there, restarted after each kill. */
interface Host {
  home: string
  serve: HttpServe | undefined
  /** Calls sent to this server and not yet answered: a kill is aimed at a server with work in flight. */
  inFlight: number
}

/** What the servers and commands answered: only these count as acknowledged. */
interface Acked {
  /** Fact id → the agent and content it was stored with. */
  facts: Map<string, {agent: string; content: string}>
  /** [replaced, replacement] of each acknowledged update. */
  updates: [string, string][]
  checkpoints: Map<string, string>
  /** Content added to agent "shared" from every server at once → the ids the servers answered. */
  shared: Map<string, Set<string>>
}

/**
 * The built `mem` as its own process, which this test may SIGKILL: a command killed before
 * it answered has acknowledged nothing, whatever it got to write.
 */
function memKillable(
  home: string,
  args: string[],
  env: Record<string, string>,
  killAfterMs?: number,
): Promise<RunResult> {
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, [BIN, ...args], {env: childEnv(home, env), stdio: ['ignore', 'pipe', 'pipe']})
    let stdout = ''
    let stderr = ''
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d))
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d))
    child.on('error', fail)
    const timer = killAfterMs === undefined ? undefined : setTimeout(() => child.kill('SIGKILL'), killAfterMs)
    child.on('close', (code) => {
      clearTimeout(timer)
      done({code: code ?? -1, stdout, stderr})
    })
  })
}

describe('several mem mcp serve --http and CLI writers on one PostgreSQL database, with SIGKILLs', function () {
  this.timeout(600_000)
  const {random} = seeded('test/store-conformance/postgres-servers.test.ts')
  let temps: ReturnType<typeof tempHome>[] = []
  let hosts: Host[] = []
  let url: string
  let tokens: {lanes: string[]; shared: string}
  /** Set when a test ends, passed or not: every loop of load it started stops. */
  let stop = false

  beforeEach(async () => {
    stop = false
    url = await freshDatabase()
    temps = Array.from({length: SERVERS}, () => tempHome())
    // Tokens scoped to one agent each, made on the first host and given to the others, as for
    // several hosts behind one address (docs/team.md, Tokens).
    const first = temps[0]!.home
    tokens = {
      lanes: Array.from({length: LANES}, (_, n) => createToken(first, ['--name', `lane-${n}`, '--agent', `lane-${n}`])),
      shared: createToken(first, ['--name', 'shared', '--agent', 'shared']),
    }
    for (const t of temps.slice(1)) {
      cpSync(join(first, 'auth'), join(t.home, 'auth'), {recursive: true})
      chmodSync(join(t.home, 'auth'), 0o700)
      chmodSync(join(t.home, 'auth', 'tokens.json'), 0o600)
    }
    // Started together: they apply the schema under its lock, once.
    hosts = await Promise.all(
      temps.map(async (t) => ({home: t.home, serve: await startHttpServe(t.home, [], {MEM_STORE: url}), inFlight: 0})),
    )
  })

  afterEach(async () => {
    stop = true
    await Promise.all(hosts.map((h) => h.serve?.stop()))
    for (const t of temps) t.cleanup()
  })

  /** A client's sessions, one per server and start of it: a restarted server listens on a new port. */
  function sessions(token: string) {
    const open = new Map<string, Promise<McpSession>>()
    return {
      async call(host: Host, tool: string, args: Record<string, unknown>) {
        const serve = host.serve
        if (serve === undefined) throw new Error('server down')
        let session = open.get(serve.url)
        if (!session) {
          session = connectHttp(serve.url, token)
          open.set(serve.url, session)
          // A session to a killed server is dropped; the next call opens one to its successor.
          session.catch(() => open.delete(serve.url))
        }
        host.inFlight++
        try {
          return await (await session).call(tool, args)
        } catch (error) {
          open.delete(serve.url)
          throw error
        } finally {
          host.inFlight--
        }
      },
      async close() {
        await Promise.all([...open.values()].map((s) => s.then((x) => x.close()).catch(() => {})))
      },
    }
  }

  it(`loses no acknowledged write and half-writes nothing across ${KILLS} server kills`, async () => {
    const acked: Acked = {facts: new Map(), updates: [], checkpoints: new Map(), shared: new Map()}
    const unexpected: string[] = []
    let failedByKill = 0
    const progress = () => acked.facts.size + acked.checkpoints.size

    /** Adds, updates its own acknowledged facts (each once) and saves, over every server in turn. */
    const lane = async (n: number, loop: number) => {
      const agent = `lane-${n}`
      const client = sessions(tokens.lanes[n]!)
      const updatable: string[] = []
      try {
        for (let i = 0; !stop && i < MAX_CALLS_PER_LOOP; i++) {
          const host = hosts[(i + loop + n) % SERVERS]!
          if (host.serve === undefined) {
            await sleep(20)
            continue
          }
          try {
            if (i % 3 === 2 && updatable.length > 0) {
              const old = updatable.shift()!
              const content = `${agent} loop ${loop} revised fact ${i} about the release train`
              const r = await client.call(host, 'memory_reflect', {action: 'update', fact_id: old, content})
              if (r.isError) unexpected.push(JSON.stringify(r.content))
              else {
                const id = (r.structuredContent as {fact_id: string}).fact_id
                acked.facts.set(id, {agent, content})
                acked.updates.push([old, id])
              }
            } else if (i % 5 === 4) {
              const r = await client.call(host, 'checkpoint_save', {state: {agent, loop, i}, label: `${loop}.${i}`})
              if (r.isError) unexpected.push(JSON.stringify(r.content))
              else acked.checkpoints.set((r.structuredContent as {checkpoint_id: string}).checkpoint_id, agent)
            } else {
              const content = `${agent} loop ${loop} fact ${i} about the staging cluster`
              const r = await client.call(host, 'memory_add', {content})
              if (r.isError) unexpected.push(JSON.stringify(r.content))
              else {
                const id = (r.structuredContent as {fact_id: string}).fact_id
                acked.facts.set(id, {agent, content})
                updatable.push(id)
              }
            }
          } catch {
            // The server was killed under the call (or was between kill and restart): nothing acknowledged.
            failedByKill++
          }
        }
      } finally {
        await client.close()
      }
    }

    /** The same sentence added to one agent through every server at once: the duplicate guard must store it once. */
    const sameSentence = async () => {
      const client = sessions(tokens.shared)
      try {
        for (let round = 0; !stop && round < MAX_CALLS_PER_LOOP; round++) {
          const content = `the shared sentence number ${round}`
          const ids = new Set<string>()
          acked.shared.set(content, ids)
          await Promise.all(
            hosts.map(async (host) => {
              if (host.serve === undefined) return
              try {
                const r = await client.call(host, 'memory_add', {content})
                if (r.isError) unexpected.push(JSON.stringify(r.content))
                else ids.add((r.structuredContent as {fact_id: string}).fact_id)
              } catch {
                failedByKill++
              }
            }),
          )
        }
      } finally {
        await client.close()
      }
    }

    /** A CLI writer: add, update, save, as separate processes; some are themselves SIGKILLed at a random moment. */
    const cliWriter = async (n: number) => {
      const agent = `cli-${n}`
      const env = {MEM_STORE: url}
      const updatable: string[] = []
      for (let i = 0; !stop && i < MAX_CALLS_PER_LOOP; i++) {
        const killAt = i % 4 === 3 ? random() * 600 : undefined
        let r: RunResult
        let done: (out: Record<string, unknown>) => void
        if (i % 3 === 2 && updatable.length > 0) {
          const old = updatable.shift()!
          const content = `${agent} revised fact ${i} about the billing service`
          const args = ['reflect', 'update', '--agent', agent, '--fact', old, '--content', content, '--json']
          r = await memKillable(hosts[0]!.home, args, env, killAt)
          done = (out) => {
            acked.facts.set(out.fact_id as string, {agent, content})
            acked.updates.push([old, out.fact_id as string])
          }
        } else if (i % 5 === 4) {
          const args = ['save', '--agent', agent, '--state', JSON.stringify({agent, i}), '--json']
          r = await memKillable(hosts[0]!.home, args, env, killAt)
          done = (out) => acked.checkpoints.set(out.checkpoint_id as string, agent)
        } else {
          const content = `${agent} fact ${i} about the billing service`
          r = await memKillable(hosts[0]!.home, ['add', '--agent', agent, content, '--json'], env, killAt)
          done = (out) => {
            acked.facts.set(out.fact_id as string, {agent, content})
            updatable.push(out.fact_id as string)
          }
        }
        if (r.code === 0) done(JSON.parse(r.stdout) as Record<string, unknown>)
        else if (killAt === undefined) unexpected.push(`mem exited ${r.code}: ${r.stderr}`)
      }
    }

    let running = 0
    const counted = (loop: Promise<void>) => {
      running++
      return loop.finally(() => running--)
    }
    const writers = [
      ...Array.from({length: LANES}, (_, n) => Array.from({length: LOOPS_PER_LANE}, (_, l) => lane(n, l))).flat(),
      sameSentence(),
      ...Array.from({length: CLI_WRITERS}, (_, n) => cliWriter(n)),
    ].map(counted)
    /** Waits for the load to get somewhere; a load that ended (its loops reached their bound) never will. */
    const until = async (reached: () => boolean, pause: number) => {
      while (!reached()) {
        if (running === 0) throw new Error(`the load ended before the ${KILLS} kills were made`)
        await sleep(pause)
      }
    }

    try {
      for (let kill = 0; kill < KILLS; kill++) {
        const before = progress()
        await until(() => progress() >= before + 10, 10)
        const host = hosts[kill % SERVERS]!
        // Aimed at a server with calls under way, so the kill lands mid-write.
        await until(() => host.inFlight > 0, 1)
        await sleep(random() * 30)
        const serve = host.serve!
        host.serve = undefined
        await serve.stop('SIGKILL')
        host.serve = await startHttpServe(host.home, [], {MEM_STORE: url})
      }
      // Some more work on the restarted servers.
      const before = progress()
      await until(() => progress() >= before + 20, 10)
    } finally {
      stop = true
      await Promise.all(writers)
    }

    assert.deepEqual(unexpected, [], 'a call failed for a reason other than a kill')
    assert.ok(failedByKill > 0, 'no call was under way when a server was killed')
    assert.ok(acked.updates.length > 0 && acked.checkpoints.size > 0, 'the load made no update or no checkpoint')

    // No half-written rows, nothing inconsistent.
    const check = mem(hosts[0]!.home, ['db', 'check', '--json'], {env: {MEM_STORE: url}})
    assert.equal(check.code, 0, check.stdout)

    const rows = await sql<{agent: string; id: string; seq: string; live: boolean; record: Record<string, unknown>}>(
      url,
      'SELECT agent, id, seq, live, record FROM mem_facts ORDER BY agent, seq',
    )
    const byId = new Map(rows.map((r) => [r.id, r]))
    // Every acknowledged fact is there, with its content, exactly once.
    const lost = [...acked.facts.keys()].filter((id) => !byId.has(id))
    assert.deepEqual(lost, [], `${lost.length} acknowledged writes lost`)
    const copies = new Map<string, number>()
    for (const r of rows) {
      const key = `${r.agent}\n${String(r.record.content)}`
      copies.set(key, (copies.get(key) ?? 0) + 1)
    }
    for (const [id, {agent, content}] of acked.facts) {
      assert.equal(byId.get(id)!.agent, agent)
      assert.equal(byId.get(id)!.record.content, content)
      assert.equal(
        copies.get(`${agent}\n${content}`),
        1,
        `"${content}" is stored ${copies.get(`${agent}\n${content}`)} times`,
      )
    }
    // History chains are whole: each replaced fact points at its replacement, which names it back.
    for (const [old, next] of acked.updates) {
      assert.equal(byId.get(old)!.record.superseded_by, next)
      assert.equal(byId.get(old)!.live, false)
      assert.deepEqual(byId.get(next)!.record.supersedes, [old])
    }
    // Ids follow the order of commits within each agent, across every server and command.
    for (const agent of new Set(rows.map((r) => r.agent))) {
      const ids = rows.filter((r) => r.agent === agent).map((r) => r.id)
      assert.deepEqual(ids, [...ids].sort(), `ids of ${agent} out of order`)
    }
    // The duplicate guard held across servers: one fact per sentence, the one every server named.
    for (const [content, ids] of acked.shared) {
      const stored = rows.filter((r) => r.agent === 'shared' && r.record.content === content)
      assert.ok(stored.length <= 1, `"${content}" is stored ${stored.length} times`)
      if (ids.size > 0) assert.deepEqual([...ids], [stored[0]!.id])
    }
    assert.ok([...acked.shared.values()].some((ids) => ids.size > 0))
    const checkpoints = await sql<{agent: string; id: string}>(url, 'SELECT agent, id FROM mem_checkpoints')
    const saved = new Map(checkpoints.map((c) => [c.id, c.agent]))
    for (const [id, agent] of acked.checkpoints) assert.equal(saved.get(id), agent, `checkpoint ${id} lost`)
    // The figures docs/reliability.md reports.
    const unanswered = rows.filter((r) => r.agent !== 'shared' && !acked.facts.has(r.id)).length
    process.stderr.write(
      `      postgres servers: ${KILLS} server SIGKILLs (${failedByKill} calls cut off), ${acked.facts.size} facts (${acked.updates.length} of them replacing another), ${acked.checkpoints.size} checkpoints acknowledged, 0 lost; ${unanswered} facts committed by a call or command killed before it answered\n`,
    )
  })

  it('two servers updating the same fact at once: one wins, the other is told which fact replaced it', async () => {
    const clients = hosts.slice(0, 2).map(() => sessions(tokens.shared))
    try {
      for (let round = 0; round < 5; round++) {
        const added = mem(hosts[0]!.home, ['add', '--agent', 'shared', `the office is in city ${round}`, '--json'], {
          env: {MEM_STORE: url},
        })
        assert.equal(added.code, 0, added.stderr)
        const id = (JSON.parse(added.stdout) as {fact_id: string}).fact_id
        const answers = await Promise.all(
          clients.map((c, i) =>
            c.call(hosts[i]!, 'memory_reflect', {
              action: 'update',
              fact_id: id,
              content: `the office moved to town ${round}.${i}`,
            }),
          ),
        )
        const won = answers.filter((a) => a.isError !== true)
        assert.equal(won.length, 1, JSON.stringify(answers.map((a) => a.content)))
        const winner = (won[0]!.structuredContent as {fact_id: string}).fact_id
        const lost = answers.find((a) => a.isError === true)!
        const text = (lost.content[0] as {text: string}).text
        assert.match(
          text,
          new RegExp(`^Fact "${id}" of agent "shared" was replaced by "${winner}" at .*; use that id instead\\.`),
        )
      }
    } finally {
      await Promise.all(clients.map((c) => c.close()))
    }
  })
})
