import assert from 'node:assert/strict'
import {spawnSync} from 'node:child_process'
import {writeFileSync} from 'node:fs'
import {join} from 'node:path'

import {connectMcp} from '../helpers/mcp.js'
import {childEnv, mem, memAsync, ROOT, tempHome} from '../helpers/mem.js'
import {freshDatabase, PASSWORD_ROLE, sql} from '../helpers/postgres.js'

/** Through the built binary: choosing the store, credentials, migrations, many writers on one database. */
describe('mem on PostgreSQL (MEM_STORE)', function () {
  this.timeout(120_000)
  let temp: ReturnType<typeof tempHome>
  beforeEach(() => {
    temp = tempHome()
  })
  afterEach(() => temp.cleanup())

  const run = (url: string | undefined, args: string[], env: Record<string, string | undefined> = {}) =>
    mem(temp.home, args, {env: {MEM_STORE: url, ...env}})

  describe('choosing the store', () => {
    /** Which modules of node-postgres a fast-path command loaded, and whether it ran the command. */
    function pgModulesLoaded(env: Record<string, string | undefined>): {pg: number; ran: boolean} {
      const script = `
        import {createRequire} from 'node:module'
        const require = createRequire(import.meta.url)
        const {runFast} = require(${JSON.stringify(join(ROOT, 'dist', 'fast.cjs'))})
        const ran = await runFast(['list'])
        process.stderr.write('pg:' + Object.keys(require.cache).filter((k) => /[/]node_modules[/]pg/.test(k)).length + ':' + ran)
      `
      const r = spawnSync(process.execPath, ['--input-type=module', '-e', script], {
        env: childEnv(temp.home, env),
        encoding: 'utf8',
      })
      const found = /pg:(\d+):(true|false)/.exec(r.stderr)
      assert.ok(found, r.stderr)
      return {pg: Number(found[1]), ran: found[2] === 'true'}
    }

    it('loads no PostgreSQL code without MEM_STORE, and leaves MEM_STORE to oclif, which loads the driver', async () => {
      assert.deepEqual(pgModulesLoaded({MEM_STORE: undefined}), {pg: 0, ran: true})
      const url = await freshDatabase()
      assert.deepEqual(pgModulesLoaded({MEM_STORE: url}), {pg: 0, ran: false})
      assert.equal(run(url, ['add', 'through oclif']).code, 0)
      const r = run(url, ['list', '--json'])
      assert.deepEqual(
        (JSON.parse(r.stdout) as {facts: {content: string}[]}).facts.map((f) => f.content),
        ['through oclif'],
      )
    })

    it('keeps the files and PostgreSQL apart', async () => {
      const url = await freshDatabase()
      assert.equal(run(url, ['add', 'kept in the database']).code, 0)
      assert.equal(run(undefined, ['add', 'kept in the files']).code, 0)
      const inDb = JSON.parse(run(url, ['list', '--json']).stdout) as {facts: {content: string}[]}
      const inFiles = JSON.parse(run(undefined, ['list', '--json']).stdout) as {facts: {content: string}[]}
      assert.deepEqual(
        inDb.facts.map((f) => f.content),
        ['kept in the database'],
      )
      assert.deepEqual(
        inFiles.facts.map((f) => f.content),
        ['kept in the files'],
      )
    })

    it('mem doctor checks the database while MEM_STORE selects it, not the files', async () => {
      const url = await freshDatabase()
      assert.equal(run(url, ['add', 'kept in the database']).code, 0)
      const r = run(url, ['doctor', '--json'])
      assert.equal(r.code, 0, r.stderr)
      const report = JSON.parse(r.stdout) as {database: string; home?: string; checked: {facts: number}}
      assert.equal(report.database, url)
      assert.equal(report.home, undefined)
      assert.equal(report.checked.facts, 1)
      assert.equal(run(undefined, ['doctor']).code, 0)
    })

    it('refuses a MEM_STORE that is not a PostgreSQL URL, without repeating it', () => {
      const r = run('mysql://root:hunter2@db/mem', ['list'])
      assert.equal(r.code, 2)
      assert.match(r.stderr, /MEM_STORE must be a PostgreSQL URL/)
      assert.doesNotMatch(r.stderr + r.stdout, /hunter2/)
    })
  })

  describe('credentials', () => {
    it('never shows the password of the URL: CLI, --json, MCP and mem mcp config', async () => {
      const url = 'postgres://mem:hunter2@127.0.0.1:1/mem'
      const text = run(url, ['add', 'x'])
      assert.equal(text.code, 1)
      assert.match(text.stderr, /could not reach PostgreSQL at postgres:\/\/mem:\*\*\*@127\.0\.0\.1:1\/mem: /)
      assert.match(text.stderr, /nothing was read or saved; try again once the database is up/)
      const json = run(url, ['search', 'x', '--json'])
      assert.equal(json.code, 1)
      assert.equal((JSON.parse(json.stdout) as {error: {code: string}}).error.code, 'io_error')
      const config = run(url, ['mcp', 'config', 'claude-code'])
      const session = await connectMcp(temp.home, {env: {MEM_STORE: url}})
      try {
        const tool = await session.call('memory_add', {content: 'x'})
        assert.equal(tool.isError, true)
        const said = JSON.stringify(tool.content)
        assert.match(said, /mem:\*\*\*@127\.0\.0\.1/)
        for (const out of [text.stdout, text.stderr, json.stdout, json.stderr, config.stdout, config.stderr, said])
          assert.doesNotMatch(out, /hunter2/)
      } finally {
        await session.close()
      }
    })

    it('a #fragment of MEM_STORE is never shown nor written into a client config', async () => {
      const url = 'postgres://mem:hunter2@127.0.0.1:1/mem#frag-s3cret'
      const text = run(url, ['add', 'x'])
      assert.equal(text.code, 1)
      assert.match(text.stderr, /could not reach PostgreSQL at postgres:\/\/mem:\*\*\*@127\.0\.0\.1:1\/mem: /)
      const json = run(url, ['list', '--json'])
      const doctor = run(url, ['doctor', '--json'])
      assert.equal((JSON.parse(doctor.stdout) as {database: string}).database, 'postgres://mem:***@127.0.0.1:1/mem')
      const copy = run(undefined, ['store', 'copy', '--to', url])
      assert.equal(copy.code, 1)
      const config = run(url, ['mcp', 'config', '--client', 'claude-code', '--json'])
      assert.equal(config.code, 0, config.stderr)
      assert.match(config.stdout, /"MEM_STORE":"postgres:\/\/mem@127\.0\.0\.1:1\/mem"/)
      const session = await connectMcp(temp.home, {env: {MEM_STORE: url}})
      try {
        const said = JSON.stringify((await session.call('memory_search', {query: 'x'})).content)
        for (const out of [text, json, doctor, copy, config].flatMap((r) => [r.stdout, r.stderr]).concat(said))
          assert.doesNotMatch(out, /frag-s3cret|hunter2/)
      } finally {
        await session.close()
      }
    })

    it('a MEM_STORE or --to node-postgres cannot read is refused (exit 2), saying what is wrong, not repeating it', () => {
      const url = 'postgres://mem:pa/s3cret@db.internal/mem'
      for (const [r, source] of [
        [run(url, ['list']), 'MEM_STORE'],
        [run(url, ['mcp', 'config', '--client', 'cursor']), 'MEM_STORE'],
        [run(undefined, ['store', 'copy', '--to', url]), '--to'],
      ] as const) {
        assert.equal(r.code, 2, r.stderr)
        assert.match(
          r.stderr,
          new RegExp(
            `^Error: ${source} is not a PostgreSQL URL mem can read: the port \\(after the host's ":"\\) is not a number \\(a / or \\? in a user name or password must be written %2F or %3F`,
          ),
        )
        assert.doesNotMatch(r.stdout + r.stderr, /s3cret|Invalid URL/)
      }
    })

    describe('a role that logs in with a password', () => {
      let db: string
      before(async () => {
        const admin = await freshDatabase()
        await sql(
          admin,
          `DO $$ BEGIN CREATE ROLE ${PASSWORD_ROLE} LOGIN PASSWORD 'pw-s3cret-42';
             EXCEPTION WHEN duplicate_object THEN ALTER ROLE ${PASSWORD_ROLE} LOGIN PASSWORD 'pw-s3cret-42'; END $$`,
        )
        const name = new URL(admin).pathname.slice(1)
        await sql(admin, `ALTER DATABASE ${name} OWNER TO ${PASSWORD_ROLE}`)
        const url = new URL(admin)
        url.searchParams.set('user', PASSWORD_ROLE)
        db = url.toString()
        // The tests below mean something only if the server asks this role for its password.
        const asked = await sql(db, 'SELECT 1', [], {password: ''}).then(
          () => false,
          () => true,
        )
        if (!asked)
          throw new Error(
            `the test server lets ${PASSWORD_ROLE} in without a password; give it a line "local all ${PASSWORD_ROLE} scram-sha-256" in pg_hba.conf (the cluster test/helpers/postgres.ts starts has one)`,
          )
      })

      it('takes the password from ~/.pgpass (PGPASSFILE) when the URL has none', () => {
        const pgpass = join(temp.home, 'pgpass')
        writeFileSync(pgpass, `*:*:*:${PASSWORD_ROLE}:pw-s3cret-42\n`, {mode: 0o600})
        const r = run(db, ['add', 'logged in from pgpass'], {PGPASSFILE: pgpass, PGPASSWORD: undefined})
        assert.equal(r.code, 0, r.stderr)
        assert.equal(r.stderr, '')
      })

      it('takes it from PGPASSWORD', () => {
        const r = run(db, ['list'], {PGPASSWORD: 'pw-s3cret-42', PGPASSFILE: '/nonexistent'})
        assert.equal(r.code, 0, r.stderr)
      })

      it('no password anywhere: says the login needs one, where it looked, and why each place gave none', () => {
        const private_ = join(temp.home, 'pgpass-other')
        writeFileSync(private_, `*:*:*:someone_else:pw-s3cret-42\n`, {mode: 0o600})
        const open = join(temp.home, 'pgpass-open')
        writeFileSync(open, `*:*:*:${PASSWORD_ROLE}:pw-s3cret-42\n`, {mode: 0o644})
        const noHome = join(temp.home, 'no-such-home')
        const cases: [Record<string, string | undefined>, RegExp][] = [
          [
            {PGPASSFILE: '/nonexistent/pgpass'},
            /PGPASSWORD is not set, and \/nonexistent\/pgpass does not exist; add the line ".*:PASSWORD" to \/nonexistent\/pgpass \(mode 0600\)/,
          ],
          [{PGPASSFILE: undefined, HOME: noHome}, new RegExp(`and ${noHome}/\\.pgpass does not exist`)],
          [
            {PGPASSFILE: open},
            new RegExp(
              `and ${open} has mode 0644: a password file is read only when no one else may read it; run chmod 600 ${open}`,
            ),
          ],
          [
            {PGPASSFILE: private_},
            new RegExp(`and ${private_} has no line for this connection; add the line ".*:${PASSWORD_ROLE}:PASSWORD"`),
          ],
        ]
        for (const [env, where] of cases) {
          for (const args of [['list'], ['add', 'never stored']]) {
            const r = run(db, args, {PGPASSWORD: undefined, ...env})
            assert.equal(r.code, 1, r.stderr)
            assert.match(
              r.stderr,
              /^Error: login needs a password: PostgreSQL at postgres:\/\/.* asked for one and none was found: the URL has none, /,
            )
            assert.match(r.stderr, where)
            assert.doesNotMatch(r.stderr, /lost the connection|try again once the database is up|WARNING|pw-s3cret-42/)
          }
        }
      })

      it('a wrong password is a login error that shows no password', () => {
        const wrong = db.replace('postgres://', `postgres://${PASSWORD_ROLE}:wr0ng-pass@`)
        const r = run(wrong, ['list'], {PGPASSFILE: '/nonexistent', PGPASSWORD: undefined})
        assert.equal(r.code, 1)
        assert.match(r.stderr, /refused the login/)
        assert.doesNotMatch(r.stderr, /wr0ng-pass|pw-s3cret-42/)
      })
    })
  })

  describe("a database without mem's tables", () => {
    const tablesIn = async (url: string) =>
      (await sql<{n: number}>(url, "SELECT count(*)::int AS n FROM pg_tables WHERE schemaname = 'public'"))[0]!.n

    it('reads answer as an empty store and create nothing; the first write applies the schema', async () => {
      const url = await freshDatabase()
      const id = '01JDQ3N7X2C9V5K8M4T6R0B1AZ'
      const empty = [
        ['search', 'deploy'],
        ['list'],
        ['agents'],
        ['checkpoints'],
        ['resume', '--on-missing', 'empty'],
        ['export', '--all'],
        ['doctor'],
      ]
      for (const args of empty) {
        const r = run(url, args)
        assert.equal(r.code, 0, `${args.join(' ')}: ${r.stderr}`)
      }
      assert.match(run(url, ['agents']).stdout, /^No agents have stored anything yet\.\n$/)
      for (const args of [['history', id], ['resume'], ['reflect', 'delete', '--fact', id]]) {
        const r = run(url, args)
        assert.equal(r.code, 3, `${args.join(' ')}: ${r.stderr}`)
      }
      const session = await connectMcp(temp.home, {env: {MEM_STORE: url}})
      try {
        const before = await session.call('memory_search', {query: 'deploy'})
        assert.equal((before.structuredContent as {count: number}).count, 0)
        assert.equal(await tablesIn(url), 0)
        const doctor = JSON.parse(run(url, ['doctor', '--json']).stdout) as {exists?: boolean}
        assert.equal(doctor.exists, false)

        assert.equal(run(url, ['add', 'deploy steps are in the wiki']).code, 0)
        assert.ok((await tablesIn(url)) > 0)
        // The server that found no tables sees the ones the write made.
        const after = await session.call('memory_search', {query: 'deploy'})
        assert.equal((after.structuredContent as {count: number}).count, 1)
        assert.equal((JSON.parse(run(url, ['doctor', '--json']).stdout) as {exists?: boolean}).exists, undefined)
      } finally {
        await session.close()
      }
    })
  })

  describe('mem db migrate', () => {
    it('applies the schema once, reports it, and finds nothing to do the second time', async () => {
      const url = await freshDatabase()
      const first = run(url, ['db', 'migrate', '--json'])
      assert.equal(first.code, 0, first.stderr)
      assert.deepEqual((JSON.parse(first.stdout) as {applied: unknown[]}).applied, [
        {version: 1, name: 'initial'},
        {version: 2, name: 'search_index'},
        {version: 3, name: 'vectors'},
      ])
      const second = run(url, ['db', 'migrate'])
      assert.equal(second.code, 0)
      assert.match(second.stdout, /is at version 3 \(nothing to apply\)\.\n$/)
    })

    it('several servers and commands starting at once apply each migration once', async () => {
      const url = await freshDatabase()
      const runs = await Promise.all([
        ...Array.from({length: 4}, () => memAsync(temp.home, ['db', 'migrate', '--json'], {env: {MEM_STORE: url}})),
        ...Array.from({length: 4}, (_, i) => memAsync(temp.home, ['add', `fact ${i}`], {env: {MEM_STORE: url}})),
      ])
      for (const r of runs) assert.equal(r.code, 0, r.stderr)
      const applied = runs.slice(0, 4).flatMap((r) => (JSON.parse(r.stdout) as {applied: unknown[]}).applied)
      // One run applied every file, or one of the adds did and the runs applied nothing.
      assert.ok(applied.length === 0 || applied.length === 3)
      assert.deepEqual(await sql(url, 'SELECT version FROM mem_schema_versions ORDER BY version'), [
        {version: 1},
        {version: 2},
        {version: 3},
      ])
    })

    it('every command refuses a schema newer than it knows', async () => {
      const url = await freshDatabase()
      assert.equal(run(url, ['add', 'before the upgrade']).code, 0)
      await sql(url, `INSERT INTO mem_schema_versions (version, name) VALUES (999, 'future')`)
      for (const args of [['list'], ['add', 'y'], ['db', 'migrate']]) {
        const r = run(url, args)
        assert.equal(r.code, 1, args.join(' '))
        assert.match(r.stderr, /schema is at version 999, newer than this mem knows \(3\)/)
      }
    })

    it('without MEM_STORE says what it needs', () => {
      const r = run(undefined, ['db', 'migrate'])
      assert.equal(r.code, 2)
      assert.match(r.stderr, /MEM_STORE is not set/)
    })
  })

  describe('mem db check', () => {
    it('says all is in order for rows mem wrote, and names each inconsistent row it finds', async () => {
      const url = await freshDatabase()
      const add = (content: string, agent = 'alice') =>
        (JSON.parse(run(url, ['add', '--json', '--agent', agent, content]).stdout) as {fact_id: string}).fact_id
      const a = add('first fact')
      const b = add('second fact')
      const c = add('third fact', 'bob')
      run(url, ['reflect', 'update', '--agent', 'alice', '--fact', b, '--content', 'second fact, fixed'])
      run(url, ['save', '--agent', 'alice', '--state', '{"k":1}'])
      const good = run(url, ['db', 'check'])
      assert.equal(good.code, 0, good.stderr)
      assert.match(
        good.stdout,
        /schema version 3 \(current\), 2 agents, 4 facts, 1 checkpoint\.\nEverything is in order\.\n$/,
      )

      await sql(url, 'UPDATE mem_facts SET live = false WHERE id = $1', [a])
      await sql(
        url,
        `UPDATE mem_facts SET record = json_build_object('id', id, 'content', 'x', 'tags', json_build_array(), 'created_at', 't', 'superseded_by', 'NOSUCHFACT') WHERE id = $1`,
        [b],
      )
      await sql(url, `UPDATE mem_agents SET revision = 0 WHERE agent = 'bob'`)
      const bad = run(url, ['db', 'check', '--json'])
      assert.equal(bad.code, 1)
      const report = JSON.parse(bad.stdout) as {ok: boolean; problems: {agent: string; id?: string; problem: string}[]}
      assert.equal(report.ok, false)
      const named = report.problems.map((p) => `${p.agent} ${p.id} ${p.problem.split(':')[0]}`)
      assert.deepEqual(
        named.sort(),
        [
          `alice ${a} its column "live" disagrees with its history marks (superseded_by, deleted_at)`,
          `alice ${b} it was replaced by a fact the agent does not have`,
          // Marked not live by hand, it still has the duplicate key of a live fact.
          `alice ${a} its duplicate key is set for a fact the guard does not cover, or missing for one it does`,
          `bob ${c} it was changed at a revision after the agent's`,
        ].sort(),
      )
      assert.doesNotMatch(bad.stdout, /postgres:\/\/[^"]*:[^*"][^"]*@/)
    })

    it('a row that is not a record fails the operations that read it, naming it, and is never skipped', async () => {
      const url = await freshDatabase()
      const id = (JSON.parse(run(url, ['add', '--json', 'soon damaged']).stdout) as {fact_id: string}).fact_id
      await sql(url, `UPDATE mem_facts SET record = '[1, 2]' WHERE id = $1`, [id])
      const listed = run(url, ['list'])
      assert.equal(listed.code, 1)
      assert.match(listed.stderr, new RegExp(`fact ${id} of agent "default" in the database is not a fact record`))
      const checked = run(url, ['db', 'check'])
      assert.equal(checked.code, 1)
      assert.match(checked.stdout, /\(current\), 1 agent, 1 fact, 0 checkpoints\.\n1 problem:\n/)
      assert.match(checked.stdout, new RegExp(`- agent default, ${id}: its record is not a fact record`))
    })
  })

  describe('many processes on one database', () => {
    it('loses no acknowledged write: CLI writers and MCP servers adding at once', async () => {
      const url = await freshDatabase()
      const env = {MEM_STORE: url}
      const servers = await Promise.all([0, 1].map(() => connectMcp(temp.home, {env})))
      try {
        const cli = Array.from({length: 5}, async (_, p) => {
          const ids: string[] = []
          for (let i = 0; i < 6; i++) {
            const r = await memAsync(temp.home, ['add', '--json', `cli writer ${p} fact ${i}`], {env})
            assert.equal(r.code, 0, r.stderr)
            ids.push((JSON.parse(r.stdout) as {fact_id: string}).fact_id)
          }
          return ids
        })
        const mcp = servers.map(async (s, p) => {
          const ids: string[] = []
          await Promise.all(
            Array.from({length: 20}, async (_, i) => {
              const r = await s.call('memory_add', {content: `server ${p} fact ${i}`})
              assert.notEqual(r.isError, true, JSON.stringify(r.content))
              ids.push((r.structuredContent as {fact_id: string}).fact_id)
            }),
          )
          return ids
        })
        const acknowledged = (await Promise.all([...cli, ...mcp])).flat()
        assert.equal(acknowledged.length, 70)
        const stored = (JSON.parse(run(url, ['list', '--json', '--limit', '1000']).stdout) as {facts: {id: string}[]})
          .facts
        assert.deepEqual(stored.map((f) => f.id).sort(), [...acknowledged].sort())
        // The agent's ids are one sequence across every writer.
        const rows = await sql<{id: string}>(url, 'SELECT id FROM mem_facts ORDER BY seq')
        assert.deepEqual(
          rows.map((r) => r.id),
          [...acknowledged].sort(),
        )
        // Each server's index follows what the others wrote.
        const found = await servers[0]!.call('memory_search', {query: 'writer', limit: 100})
        assert.equal((found.structuredContent as {count: number}).count, 30)
      } finally {
        await Promise.all(servers.map((s) => s.close()))
      }
    })

    it('processes updating one fact at once: one wins, the others are told which fact replaced it', async () => {
      const url = await freshDatabase()
      const env = {MEM_STORE: url}
      const id = (JSON.parse(run(url, ['add', '--json', 'the office is in Lyon']).stdout) as {fact_id: string}).fact_id
      const runs = await Promise.all(
        Array.from({length: 4}, (_, i) =>
          memAsync(
            temp.home,
            ['reflect', 'update', '--fact', id, '--content', `the office is in town ${i}`, '--json'],
            {
              env,
            },
          ),
        ),
      )
      const won = runs.filter((r) => r.code === 0)
      assert.equal(won.length, 1, runs.map((r) => r.stderr).join('\n'))
      const winner = (JSON.parse(won[0]!.stdout) as {fact_id: string}).fact_id
      for (const r of runs.filter((x) => x.code !== 0)) {
        assert.equal(r.code, 3)
        assert.match(r.stdout, new RegExp(`was replaced by \\\\"${winner}\\\\"`))
      }
    })
  })
})
