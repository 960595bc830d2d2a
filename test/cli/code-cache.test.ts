import assert from 'node:assert/strict'
import {chmodSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'

import {mem, tempHome} from '../helpers/mem.js'
import {failing, startMem} from '../torture/helpers.js'

/**
 * The fast path is compiled with the code V8 cached on an earlier run (src/code-cache.ts), in
 * the user's cache folder. The cache is a shortcut only: whatever state it is in, the command
 * answers the same, and nothing in it is trusted that another user could have written.
 */
describe('the code cache of the fast path', () => {
  let home: ReturnType<typeof tempHome>
  let xdg: string
  let dir: string
  beforeEach(() => {
    home = tempHome()
    xdg = join(home.home, 'xdg-cache')
    dir = join(xdg, 'mem')
    mem(home.home, ['add', 'Deploys go out on Tuesdays', '--agent', 'ops'])
  })
  afterEach(() => home.cleanup())

  const search = (env: Record<string, string | undefined> = {}) => {
    const r = mem(home.home, ['search', 'deploys', '--agent', 'ops', '--json'], {env: {XDG_CACHE_HOME: xdg, ...env}})
    assert.equal(r.code, 0, r.stderr)
    assert.equal(r.stderr, '')
    return r.stdout
  }
  const caches = () => readdirSync(dir).filter((name) => name.endsWith('.v8'))
  const identity = (name: string) => {
    const s = statSync(join(dir, name))
    return `${s.ino}:${s.mtimeMs}:${s.size}`
  }

  it('is written once, private to the user, and read back without being written again', () => {
    const uncached = search({MEM_NO_CODE_CACHE: '1'})
    assert.throws(() => statSync(dir), /ENOENT/, 'MEM_NO_CODE_CACHE=1 writes no cache')
    assert.equal(search(), uncached)
    assert.equal(statSync(dir).mode & 0o777, 0o700)
    const name = caches()[0]!
    assert.ok(name.startsWith(`fast.cjs-search-${process.version}-${process.arch}-`), name)
    assert.equal(caches().length, 1)
    assert.equal(statSync(join(dir, name)).mode & 0o777, 0o600)
    const written = identity(name)
    assert.equal(search(), uncached)
    assert.equal(identity(name), written, 'a cache V8 accepts is not written again')
  })

  it('keeps one cache per command, each read back without being written again', () => {
    search()
    const searched = caches()
    assert.equal(searched.length, 1)
    const add = () => {
      const r = mem(home.home, ['add', 'Standups are at ten', '--agent', 'ops', '--json'], {env: {XDG_CACHE_HOME: xdg}})
      assert.equal(r.code, 0, r.stderr)
    }
    add()
    const added = caches().filter((name) => !searched.includes(name))
    assert.equal(added.length, 1, 'the add wrote a cache of its own')
    assert.ok(added[0]!.startsWith(`fast.cjs-add-${process.version}-`), added[0])
    const before = caches().map(identity)
    search()
    add()
    assert.deepEqual(caches().map(identity), before, 'neither cache written again, neither removed')
  })

  it('answers the same from a damaged or cut-short cache, and replaces it', () => {
    const expected = search()
    const name = caches()[0]!
    const path = join(dir, name)
    const whole = readFileSync(path)
    for (const bad of [Buffer.from('not a code cache at all'), whole.subarray(0, whole.length >> 1)]) {
      writeFileSync(path, bad, {mode: 0o600})
      assert.equal(search(), expected)
      assert.ok(statSync(path).size > bad.length, 'rewritten whole')
      const rewritten = identity(name)
      assert.equal(search(), expected)
      assert.equal(identity(name), rewritten, 'the rewritten cache is accepted')
    }
  })

  it('removes caches made for other code when it writes its own', () => {
    mkdirSync(dir, {mode: 0o700, recursive: true})
    const stale = `fast.cjs-search-${process.version}-${process.arch}-${'0'.repeat(32)}.v8`
    writeFileSync(join(dir, stale), 'from an older mem', {mode: 0o600})
    writeFileSync(join(dir, 'unrelated.txt'), 'not ours to remove', {mode: 0o600})
    search()
    assert.equal(caches().length, 1)
    assert.notEqual(caches()[0], stale)
    assert.ok(readdirSync(dir).includes('unrelated.txt'))
  })

  it("removes a cache of this build under another name, and keeps the other commands' caches", () => {
    search()
    const build = caches()[0]!.slice('fast.cjs-search'.length)
    const unnamed = `fast.cjs${build}`
    writeFileSync(join(dir, unnamed), 'named as before there was one cache per command', {mode: 0o600})
    writeFileSync(join(dir, `fast.cjs-add${build}`), 'the add command', {mode: 0o600})
    rmSync(join(dir, `fast.cjs-search${build}`))
    search()
    assert.deepEqual(caches().sort(), [`fast.cjs-add${build}`, `fast.cjs-search${build}`])
  })

  it('neither reads nor writes a folder others can write, or one reached through a link', () => {
    const expected = search({MEM_NO_CODE_CACHE: '1'})
    mkdirSync(dir, {recursive: true})
    chmodSync(dir, 0o777)
    assert.equal(search(), expected)
    assert.deepEqual(readdirSync(dir), [], 'nothing written into a folder open to others')

    const elsewhere = join(home.home, 'elsewhere')
    mkdirSync(elsewhere, {mode: 0o700})
    const linked = join(home.home, 'linked-cache')
    mkdirSync(linked, {mode: 0o700})
    symlinkSync(elsewhere, join(linked, 'mem'))
    assert.equal(search({XDG_CACHE_HOME: linked}), expected)
    assert.deepEqual(readdirSync(elsewhere), [], 'nothing written through the link')
  })

  it('still answers when the cache folder cannot be made', () => {
    const expected = search({MEM_NO_CODE_CACHE: '1'})
    mkdirSync(xdg, {recursive: true})
    writeFileSync(dir, 'a file where the folder would go')
    assert.equal(search(), expected)
    assert.equal(readFileSync(dir, 'utf8'), 'a file where the folder would go')
  })

  it('answers the same and leaves nothing behind when the disk is full as the cache is written', async () => {
    const expected = search()
    for (const name of caches()) rmSync(join(dir, name))
    // The search's index is saved already, so the cache's rename is the only one this run makes.
    const r = await startMem(home.home, ['search', 'deploys', '--agent', 'ops', '--json'], {
      prefix: failing('rename', 'ENOSPC', 1),
      env: {XDG_CACHE_HOME: xdg},
    }).done
    assert.equal(r.code, 0, r.stderr)
    assert.equal(r.stdout, expected)
    assert.equal(r.stderr, '')
    assert.deepEqual(readdirSync(dir), [], 'no cache and no half-written file left')
    assert.equal(search(), expected)
    assert.equal(caches().length, 1, 'written once the disk has room')
  })

  it('ignores a relative XDG_CACHE_HOME, as the XDG spec says', () => {
    const r = mem(home.home, ['search', 'deploys', '--agent', 'ops', '--json'], {
      env: {XDG_CACHE_HOME: 'relative-cache', HOME: home.home},
    })
    assert.equal(r.code, 0, r.stderr)
    assert.equal(readdirSync(join(home.home, '.cache', 'mem')).filter((n) => n.endsWith('.v8')).length, 1)
  })
})
