/**
 * Peak memory of `mem import`, whole process, on files that used to cost the most:
 *
 *   node --import tsx bench/import-memory.ts            every case (about a minute on 2 cores)
 *   node --import tsx bench/import-memory.ts --only facts,stdin   chosen cases
 *   MEM_BENCH_BIN=/other/checkout/bin/run.js node --import tsx bench/import-memory.ts   another build
 *   node --import tsx bench/import-memory.ts --only facts --facts 400000   a larger export
 *
 * Cases (files made in the system temp folder, removed afterwards unless --keep):
 * - huge-line: one 60 MB line (a fact whose content never ends), which must be refused;
 * - facts: a mem export of 200,000 facts (47 MB; --facts sets how many), into an empty home;
 * - again: the same file imported a second time, so every line is skipped and reported;
 * - stdin: the same file on `mem import -`'s stdin, redirected from the file (read in place);
 * - pipe: the same file through a pipe to `mem import -` (copied to the temp folder first);
 * - chatgpt: a ChatGPT conversations.json of one line (about 60 MB, 2,000 conversations).
 *
 * Peak RSS is the kernel's high-water mark of the mem process (`/usr/bin/time -f %M`). Run
 * `npm run build` first: it measures the built binary.
 */
import {spawnSync} from 'node:child_process'
import {closeSync, mkdtempSync, openSync, readFileSync, rmSync, statSync, writeSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {parseArgs} from 'node:util'

import {BIN} from './speed/cold.js'
import {FactGenerator} from './speed/facts.js'

const {values: opts} = parseArgs({
  options: {
    only: {type: 'string', default: 'huge-line,facts,again,stdin,pipe,chatgpt'},
    keep: {type: 'boolean', default: false},
    /** How many facts the export of the facts, again, stdin and pipe cases holds. */
    facts: {type: 'string', default: '200000'},
  },
})
const factCount = Number(opts.facts)
const only = new Set(opts.only.split(','))

const MiB = 1024 * 1024
const dir = mkdtempSync(join(tmpdir(), 'mem-import-bench-'))

/** Writes a file in chunks, so the benchmark itself never holds it whole. */
function writeFile(path: string, chunks: Iterable<string>): number {
  const fd = openSync(path, 'w')
  let buffer = ''
  for (const chunk of chunks) {
    buffer += chunk
    if (buffer.length > MiB) {
      writeSync(fd, buffer)
      buffer = ''
    }
  }
  writeSync(fd, buffer)
  closeSync(fd)
  return statSync(path).size
}

const CROCKFORD = '0123456789ABCDEFGHJKMNPQRSTVWXYZ'

/** A valid, ordered id: the time part from `ms`, the rest from the counter. */
function idOf(ms: number, n: number): string {
  let time = ''
  for (let t = ms, i = 0; i < 10; i++, t = Math.floor(t / 32)) time = CROCKFORD[t % 32] + time
  let rest = ''
  for (let c = n, i = 0; i < 16; i++, c = Math.floor(c / 32)) rest = CROCKFORD[c % 32] + rest
  return time + rest
}

function* hugeLine(): Iterable<string> {
  yield '{"type":"fact","agent_id":"bench","id":"01KBENCH0000000000000000AA","content":"'
  const words = 'the quick brown fox jumps over the lazy dog '.repeat(1000)
  for (let n = 0; n < 60 * MiB; n += words.length) yield words
  yield '","tags":[],"created_at":"2026-01-31T09:15:00.000Z"}\n'
}

function* facts(count: number): Iterable<string> {
  const gen = new FactGenerator(42)
  const start = Date.parse('2026-01-01T00:00:00.000Z')
  yield '{"type":"header","format":"mem.export","version":1}\n'
  for (let i = 0; i < count; i++) {
    const f = gen.fact()
    const ms = start + i * 1000
    const content = `${f.content}; noted by ${gen.codename()}`
    yield (
      JSON.stringify({
        type: 'fact',
        agent_id: 'bench',
        id: idOf(ms, i),
        content,
        tags: f.tags,
        created_at: new Date(ms).toISOString(),
      }) + '\n'
    )
  }
}

function* chatgpt(conversations: number, messages: number): Iterable<string> {
  const gen = new FactGenerator(7)
  const start = Date.parse('2025-01-01T00:00:00.000Z') / 1000
  yield '['
  for (let c = 0; c < conversations; c++) {
    const mapping: Record<string, unknown> = {root: {id: 'root', message: null, parent: null, children: ['m0']}}
    for (let m = 0; m < messages; m++) {
      const text = Array.from({length: 8}, () => gen.fact().content).join(' ')
      mapping[`m${m}`] = {
        id: `m${m}`,
        message: {
          id: `m${m}`,
          author: {role: m % 2 === 0 ? 'user' : 'assistant', name: null, metadata: {}},
          create_time: start + c * 3600 + m * 10,
          content: {content_type: 'text', parts: [text]},
          status: 'finished_successfully',
          metadata: {model_slug: 'gpt-4o', finish_details: {type: 'stop'}},
        },
        parent: m === 0 ? 'root' : `m${m - 1}`,
        children: m + 1 < messages ? [`m${m + 1}`] : [],
      }
    }
    const conversation = {
      title: `Conversation ${c}`,
      create_time: start + c * 3600,
      mapping,
      current_node: `m${messages - 1}`,
      id: `conv-${c}`,
    }
    yield (c === 0 ? '' : ',') + JSON.stringify(conversation)
  }
  yield ']'
}

interface Measured {
  code: number
  peakMiB: number
  seconds: number
  said: string
}

/** Runs the built `mem import` under /usr/bin/time and reads its peak RSS. */
function measure(home: string, args: string[], input?: {file: string; through: 'redirect' | 'pipe'}): Measured {
  const timeFile = join(dir, 'time.txt')
  const started = process.hrtime.bigint()
  const stdin = input === undefined ? 'ignore' : input.through === 'pipe' ? 'pipe' : openSync(input.file, 'r')
  const r = spawnSync(
    '/usr/bin/time',
    ['-f', '%M', '-o', timeFile, process.execPath, BIN, 'import', ...args, '--json'],
    {
      env: {...process.env, MEM_HOME: home, MEM_AGENT: 'bench', NO_COLOR: '1'},
      stdio: [stdin, 'pipe', 'pipe'],
      input: input?.through === 'pipe' ? readFileSync(input.file) : undefined,
      encoding: 'utf8',
      maxBuffer: 512 * MiB,
    },
  )
  if (typeof stdin === 'number') closeSync(stdin)
  const seconds = Number(process.hrtime.bigint() - started) / 1e9
  const kib = Number(readFileSync(timeFile, 'utf8').trim().split('\n').pop())
  const out = r.stdout.trim() || r.stderr.trim()
  return {code: r.status ?? -1, peakMiB: kib / 1024, seconds, said: summarize(out)}
}

/** The gist of a report or an error: counts, not every line. */
function summarize(out: string): string {
  try {
    const json = JSON.parse(out) as {
      added?: unknown
      skipped?: unknown[]
      rejected?: unknown[]
      error?: {code: string; message: string}
    }
    if (json.error) return `${json.error.code}: ${json.error.message.split('\n').slice(0, 2).join(' ').slice(0, 160)}`
    return `added ${JSON.stringify(json.added)}, skipped ${json.skipped?.length}, rejected ${json.rejected?.length}`
  } catch {
    return out.slice(0, 160)
  }
}

function home(): string {
  return mkdtempSync(join(dir, 'home-'))
}

const rows: string[] = []
function row(name: string, bytes: number, m: Measured): void {
  const line = `| ${name} | ${(bytes / 1e6).toFixed(1)} MB | ${m.peakMiB.toFixed(0)} MiB | ${m.seconds.toFixed(1)} s | ${m.code} | ${m.said} |`
  rows.push(line)
  console.error(line)
}

try {
  console.error(`measuring ${BIN}; files in ${dir}`)
  if (only.has('huge-line')) {
    const file = join(dir, 'huge-line.jsonl')
    const bytes = writeFile(file, hugeLine())
    row('huge-line: one 60 MB line', bytes, measure(home(), [file]))
    if (!opts.keep) rmSync(file)
  }
  if (['facts', 'again', 'stdin', 'pipe'].some((c) => only.has(c))) {
    const file = join(dir, 'facts.jsonl')
    const bytes = writeFile(file, facts(factCount))
    const h = home()
    const n = factCount.toLocaleString('en')
    if (only.has('facts') || only.has('again')) row(`facts: ${n} facts`, bytes, measure(h, [file]))
    if (only.has('again')) row('again: the same file again', bytes, measure(h, [file]))
    if (only.has('stdin')) row(`stdin: ${n} facts on stdin`, bytes, measure(home(), ['-'], {file, through: 'redirect'}))
    if (only.has('pipe')) row(`pipe: ${n} facts through a pipe`, bytes, measure(home(), ['-'], {file, through: 'pipe'}))
    if (!opts.keep) rmSync(file)
  }
  if (only.has('chatgpt')) {
    const file = join(dir, 'conversations.json')
    const bytes = writeFile(file, chatgpt(2_000, 30))
    row('chatgpt: conversations.json, one line', bytes, measure(home(), [file]))
    if (!opts.keep) rmSync(file)
  }
  console.log('| case | file | peak RSS | wall time | exit | result |')
  console.log('| --- | --- | --- | --- | --- | --- |')
  for (const r of rows) console.log(r)
} finally {
  if (opts.keep) console.error(`kept ${dir}`)
  else rmSync(dir, {recursive: true, force: true})
}
