import assert from 'node:assert/strict'
import {existsSync, readFileSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'

import {Client} from '@modelcontextprotocol/sdk/client/index.js'
import {StdioClientTransport} from '@modelcontextprotocol/sdk/client/stdio.js'

import {mem, tempHome, type RunResult} from '../helpers/mem.js'
import {freshDatabase, PASSWORD_ROLE, sql} from '../helpers/postgres.js'

const SECRET = 'pw-s3cret-42'

type Entry = {command: string; args: string[]; env?: Record<string, string>}

/** Starts the server the way the client would: from the entry alone, with only PATH of this environment. */
async function addThroughEntry(entry: Entry, content: string): Promise<void> {
  const client = new Client({name: 'config-test', version: '1.0.0'})
  await client.connect(
    new StdioClientTransport({
      command: entry.command,
      args: entry.args,
      env: {...entry.env, PATH: process.env.PATH ?? ''},
      stderr: 'pipe',
    }),
  )
  try {
    const added = await client.callTool({name: 'memory_add', arguments: {content}})
    assert.notEqual(added.isError, true, JSON.stringify(added.content))
  } finally {
    await client.close()
  }
}

/** `mem mcp config` and `mem mcp install` with MEM_STORE set: the client's server uses the same database, and no password is written. */
describe('mem mcp config and install pass MEM_STORE on, without its password', function () {
  this.timeout(120_000)
  let h: ReturnType<typeof tempHome>
  beforeEach(() => {
    h = tempHome()
  })
  afterEach(() => h.cleanup())

  /** HOME is the temp folder: nothing here touches the real user's config files. */
  const run = (args: string[], env: Record<string, string | undefined>): RunResult =>
    mem(join(h.home, 'store'), args, {
      env: {HOME: h.home, XDG_CONFIG_HOME: undefined, APPDATA: undefined, PGPASSWORD: undefined, ...env},
    })

  it('a client started from the installed entry reads and writes the same database', async () => {
    const url = await freshDatabase()
    const r = run(['mcp', 'install', '--client', 'claude-desktop'], {MEM_STORE: url})
    assert.equal(r.code, 0, r.stderr)
    assert.equal(r.stderr, '', 'nothing was left out, so there is nothing to note')
    const file = join(h.home, '.config', 'Claude', 'claude_desktop_config.json')
    const entry = (JSON.parse(readFileSync(file, 'utf8')) as {mcpServers: {mem: Entry}}).mcpServers.mem
    assert.deepEqual(entry.env, {MEM_HOME: join(h.home, 'store'), MEM_STORE: url})

    await addThroughEntry(entry, 'stored through the installed entry')
    const listed = JSON.parse(run(['list', '--json'], {MEM_STORE: url}).stdout) as {facts: {content: string}[]}
    assert.deepEqual(
      listed.facts.map((f) => f.content),
      ['stored through the installed entry'],
    )
    assert.equal(existsSync(join(h.home, 'store', 'agents')), false, 'nothing went to the files')
  })

  describe('a URL with a password', () => {
    let db: string
    before(async () => {
      const admin = await freshDatabase()
      await sql(
        admin,
        `DO $$ BEGIN CREATE ROLE ${PASSWORD_ROLE} LOGIN PASSWORD '${SECRET}';
           EXCEPTION WHEN duplicate_object THEN ALTER ROLE ${PASSWORD_ROLE} LOGIN PASSWORD '${SECRET}'; END $$`,
      )
      await sql(admin, `ALTER DATABASE ${new URL(admin).pathname.slice(1)} OWNER TO ${PASSWORD_ROLE}`)
      // The role in the user part, where a password can stand beside it: postgres://role@/db?host=…
      const url = new URL(admin)
      const socket = url.searchParams.get('host')
      db = `postgres://${PASSWORD_ROLE}@${url.host}${url.pathname}${socket ? `?host=${encodeURIComponent(socket)}` : ''}`
    })

    const withPassword = () => db.replace(`${PASSWORD_ROLE}@`, `${PASSWORD_ROLE}:${SECRET}@`)

    it('config writes MEM_STORE without it, and says on stderr how the server will find it', () => {
      for (const url of [withPassword(), `${db}${db.includes('?') ? '&' : '?'}password=${SECRET}`]) {
        const r = run(['mcp', 'config', '--json'], {MEM_STORE: url})
        assert.equal(r.code, 0, r.stderr)
        const out = JSON.parse(r.stdout) as {
          clients: {snippet: Record<string, {mem: Entry}>; command_line?: string}[]
          left_out: string[]
        }
        assert.deepEqual(out.left_out, ['the password in MEM_STORE'])
        for (const c of out.clients) assert.equal(Object.values(c.snippet)[0]!.mem.env!.MEM_STORE, db)
        assert.ok(out.clients[1]!.command_line!.includes(`-e 'MEM_STORE=${db}'`), out.clients[1]!.command_line)
        assert.match(
          r.stderr,
          /^Note: the password in MEM_STORE was left out of the config: a config file is no place for a password\. The server the client starts finds it in ~\/\.pgpass .* or in PGPASSWORD .*docs\/team\.md/,
        )
        assert.doesNotMatch(r.stdout + r.stderr, new RegExp(SECRET))
      }
      const prose = run(['mcp', 'config', '--client', 'cursor'], {MEM_STORE: withPassword(), PGPASSWORD: SECRET})
      assert.equal(prose.code, 0, prose.stderr)
      assert.match(prose.stderr, /^Note: the password in MEM_STORE and PGPASSWORD were left out of the config/)
      assert.doesNotMatch(prose.stdout + prose.stderr, new RegExp(SECRET))
    })

    it('install writes no password, and the server it configures logs in from ~/.pgpass', async () => {
      const pgpass = join(h.home, 'pgpass')
      writeFileSync(pgpass, `*:*:*:${PASSWORD_ROLE}:${SECRET}\n`, {mode: 0o600})
      const r = run(['mcp', 'install', '--client', 'cursor'], {MEM_STORE: withPassword(), PGPASSFILE: pgpass})
      assert.equal(r.code, 0, r.stderr)
      assert.match(r.stderr, /^Note: the password in MEM_STORE was left out of the config/)
      const file = join(h.home, '.cursor', 'mcp.json')
      const text = readFileSync(file, 'utf8')
      assert.doesNotMatch(text, new RegExp(SECRET))
      const entry = (JSON.parse(text) as {mcpServers: {mem: Entry}}).mcpServers.mem
      assert.deepEqual(entry.env, {MEM_HOME: join(h.home, 'store'), MEM_STORE: db, PGPASSFILE: pgpass})

      await addThroughEntry(entry, 'logged in through the pgpass file')
      const listed = run(['list', '--json'], {MEM_STORE: db, PGPASSFILE: pgpass})
      assert.equal(listed.code, 0, listed.stderr)
      assert.equal((JSON.parse(listed.stdout) as {facts: unknown[]}).facts.length, 1)
    })
  })

  it('refuses a MEM_STORE that is not a PostgreSQL URL, without repeating it, and writes nothing', () => {
    const r = run(['mcp', 'install', '--client', 'cursor'], {MEM_STORE: 'mysql://root:hunter2@db/mem'})
    assert.equal(r.code, 2)
    assert.match(r.stderr, /MEM_STORE must be a PostgreSQL URL/)
    assert.doesNotMatch(r.stdout + r.stderr, /hunter2/)
    assert.equal(existsSync(join(h.home, '.cursor')), false)
  })
})
