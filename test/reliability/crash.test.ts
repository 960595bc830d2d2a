import assert from 'node:assert/strict'
import {spawn, type ChildProcess} from 'node:child_process'
import {join} from 'node:path'
import {setTimeout as sleep} from 'node:timers/promises'

import {childEnv, mem, tempHome} from '../helpers/mem.js'
import {seeded} from '../helpers/seed.js'
import {duplicates, readBack} from './files.js'

const WRITER = join(import.meta.dirname, 'fixtures', 'writer.mjs')
const LANES = 4
const WRITERS_PER_LANE = 2
const KILLS = 200

interface Writer {
  child: ChildProcess
  acked: {fact: string[]; checkpoint: string[]; update: [string, string][]}
  exited: Promise<void>
}

/** A writer process; its acknowledged ids are collected line by line from stdout. */
/** `seed` drives the writer's own pauses (fixtures/writer.mjs), so a replayed seed replays them too. */
function startWriter(home: string, agent: string, tag: string, seed: number, acked: Writer['acked']): Writer {
  const child = spawn(process.execPath, ['--import', 'tsx', WRITER, home, agent, tag, String(seed)], {
    env: childEnv(home),
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let buffered = ''
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
    buffered += chunk
    const lines = buffered.split('\n')
    buffered = lines.pop()!
    for (const line of lines) {
      const [kind, id, replacement] = line.split(' ') as ['fact' | 'checkpoint' | 'update', string, string]
      if (kind === 'update') {
        acked.update.push([id, replacement])
        acked.fact.push(replacement)
      } else acked[kind].push(id)
    }
  })
  let stderr = ''
  child.stderr!.setEncoding('utf8').on('data', (d: string) => (stderr += d))
  const exited = new Promise<void>((resolve, reject) =>
    child.on('exit', (code, signal) =>
      signal === 'SIGKILL' ? resolve() : reject(new Error(`writer stopped by itself (${code ?? signal}): ${stderr}`)),
    ),
  )
  return {child, acked, exited}
}

/** Waits until the writer has acknowledged one more change than before, so the kill lands mid-work. */
async function untilProgress(acked: Writer['acked'], since: number, child: ChildProcess): Promise<void> {
  while (acked.fact.length + acked.checkpoint.length <= since) {
    // A writer that stopped by itself will never make progress: fail instead of waiting forever.
    if (child.exitCode !== null || child.signalCode !== null)
      throw new Error(`a writer stopped by itself (${child.exitCode ?? child.signalCode})`)
    await sleep(5)
  }
}

describe('crash safety: writers SIGKILLed at random moments (real processes, real files)', function () {
  this.timeout(600_000)
  const {random} = seeded('test/reliability/crash.test.ts')
  const writerSeed = (): number => Math.floor(random() * 2 ** 31)
  let home: ReturnType<typeof tempHome>
  before(() => (home = tempHome()))
  after(() => home.cleanup())

  it(`after each of ${KILLS} kills every file parses and holds every acknowledged change exactly once`, async () => {
    let kills = 0
    let checks = 0
    const lane = async (n: number): Promise<{facts: number; checkpoints: number; updates: number}> => {
      const agent = `lane-${n}`
      const acked: Writer['acked'] = {fact: [], checkpoint: [], update: []}
      const writers = Array.from({length: WRITERS_PER_LANE}, (_, i) =>
        startWriter(home.home, agent, `w${n}.${i}`, writerSeed(), acked),
      )
      try {
        while (kills < KILLS) {
          const victim = Math.floor(random() * writers.length)
          await untilProgress(acked, acked.fact.length + acked.checkpoint.length, writers[victim]!.child)
          await sleep(random() * 60)
          writers[victim]!.child.kill('SIGKILL')
          await writers[victim]!.exited
          kills++
          // Only what was acknowledged before the read starts must be there.
          const expected = {facts: [...acked.fact], checkpoints: [...acked.checkpoint], updates: [...acked.update]}
          const found = await readBack(home.home, agent)
          const factIds = new Set(found.facts.map((f) => f.id))
          const byId = new Map(found.facts.map((f) => [f.id, f]))
          assert.deepEqual(
            expected.updates.filter(([old, next]) => byId.get(old)?.superseded_by !== next),
            [],
            `replacements not recorded after kill ${kills}`,
          )
          const checkpointIds = new Set(found.checkpoints.map((c) => c.id))
          assert.deepEqual(
            expected.facts.filter((id) => !factIds.has(id)),
            [],
            `lost facts after kill ${kills}`,
          )
          assert.deepEqual(
            expected.checkpoints.filter((id) => !checkpointIds.has(id)),
            [],
            `lost checkpoints after kill ${kills}`,
          )
          assert.deepEqual(duplicates(found.facts.map((f) => f.id)), [])
          assert.deepEqual(duplicates(found.checkpoints.map((c) => c.id)), [])
          checks++
          writers[victim] = startWriter(home.home, agent, `w${n}.${kills}`, writerSeed(), acked)
        }
      } finally {
        for (const w of writers) w.child.kill('SIGKILL')
        await Promise.all(writers.map((w) => w.exited))
      }
      const final = await readBack(home.home, agent)
      const factIds = new Set(final.facts.map((f) => f.id))
      assert.deepEqual(
        acked.fact.filter((id) => !factIds.has(id)),
        [],
      )
      assert.deepEqual(duplicates(final.facts.map((f) => f.id)), [])
      return {facts: acked.fact.length, checkpoints: acked.checkpoint.length, updates: acked.update.length}
    }
    const totals = await Promise.all(Array.from({length: LANES}, (_, n) => lane(n)))
    assert.ok(kills >= KILLS)
    // Killed writers leave temp files and perhaps a stale lock behind: doctor clears them, then finds nothing.
    assert.equal(mem(home.home, ['doctor', '--fix']).code, 0)
    const clean = mem(home.home, ['doctor'])
    assert.equal(clean.code, 0, clean.stdout)
    assert.equal(checks, kills)
    const facts = totals.reduce((s, t) => s + t.facts, 0)
    const checkpoints = totals.reduce((s, t) => s + t.checkpoints, 0)
    const updates = totals.reduce((s, t) => s + t.updates, 0)
    // The figures docs/reliability.md reports.
    process.stderr.write(
      `      crash: ${kills} SIGKILLs, ${LANES * WRITERS_PER_LANE} writers at a time, ${facts} facts (${updates} of them replacing another), ${checkpoints} checkpoints acknowledged, 0 lost\n`,
    )
  })
})
