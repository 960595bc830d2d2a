import assert from 'node:assert/strict'
import {spawnSync} from 'node:child_process'
import {readFileSync} from 'node:fs'
import {join} from 'node:path'

import {BIN, ROOT, childEnv, mem, tempHome} from '../helpers/mem.js'

/** Runs mem at a pseudo-terminal (util-linux `script`) with `answer` typed in; returns the screen without colours. */
function inTerminal(home: string, args: string[], answer: string): string {
  const command = [process.execPath, BIN, ...args].map((w) => `'${w}'`).join(' ')
  const r = spawnSync('script', ['-qec', command, '/dev/null'], {
    env: childEnv(home, {HOME: home}),
    input: answer,
    encoding: 'utf8',
  })
  // eslint-disable-next-line no-control-regex -- stripping the terminal's escape sequences
  return r.stdout.replace(/\x1b\[[0-9;?]*[A-Za-z]/g, '')
}

describe('the terminal experience: help, suggestions, completion', () => {
  let h: ReturnType<typeof tempHome>
  before(() => {
    h = tempHome()
  })
  after(() => h.cleanup())

  it('every mem command has --help with examples', () => {
    const manifest = JSON.parse(readFileSync(join(ROOT, 'oclif.manifest.json'), 'utf8')) as {
      commands: Record<string, {examples?: string[]}>
    }
    const ids = Object.keys(manifest.commands)
    for (const expected of ['export', 'import', 'mcp:config', 'mcp:install'])
      assert.ok(ids.includes(expected), `${expected} is a command`)
    for (const id of ids) {
      const r = mem(h.home, [...id.split(':'), '--help'], {env: {HOME: h.home}})
      assert.equal(r.code, 0, `${id} --help: ${r.stderr}`)
      assert.match(r.stdout, /^USAGE\n/m, `${id} --help shows usage`)
      assert.match(r.stdout, /^EXAMPLES\n {2}\S.*\bmem /m, `${id} --help shows examples`)
    }
  })

  it('the command reference in docs/commands.md covers every command', () => {
    const manifest = JSON.parse(readFileSync(join(ROOT, 'oclif.manifest.json'), 'utf8')) as {
      commands: Record<string, unknown>
    }
    const reference = readFileSync(join(ROOT, 'docs', 'commands.md'), 'utf8')
    for (const id of Object.keys(manifest.commands)) {
      assert.match(
        reference,
        new RegExp(`^## \`mem ${id.replaceAll(':', ' ')}[ \`]`, 'm'),
        `docs/commands.md lacks ${id}: run "npm run docs:commands"`,
      )
    }
  })

  it('a mistyped command suggests the right one, at a terminal and piped, without prompting', () => {
    for (const [typed, meant] of [
      [['serch', 'pnpm'], 'search'],
      [['exprot'], 'export'],
      [['improt', 'x.jsonl'], 'import'],
      [['mcp', 'instal'], 'mcp install'],
      [['mcp', 'confg'], 'mcp config'],
    ] as const) {
      const screen = inTerminal(h.home, [...typed], 'n\n')
      assert.match(
        screen,
        new RegExp(`is not a mem command\\. Did you mean "mem ${meant}"\\?`),
        `${typed.join(' ')}: ${screen}`,
      )
    }
    const piped = mem(h.home, ['exprot'], {env: {HOME: h.home}})
    assert.equal(piped.code, 2)
    assert.match(piped.stderr, /exprot is not a mem command\. Did you mean "mem export"\?/)
  })

  it('completes commands, subcommands and flags in bash, and sets up zsh', () => {
    const env = {HOME: h.home, XDG_CACHE_HOME: undefined}
    const instructions = mem(h.home, ['autocomplete', 'bash'], {env})
    assert.equal(instructions.code, 0, instructions.stderr)
    assert.match(instructions.stdout, /mem autocomplete script bash/)
    const setup = mem(h.home, ['autocomplete', 'script', 'bash'], {env}).stdout
    assert.match(setup, /MEM_AC_BASH_SETUP_PATH=\S+ && test -f/)
    const complete = (words: string[]): string => {
      const script = `${setup}\nCOMP_WORDS=(${words.map((w) => `'${w}'`).join(' ')}); COMP_CWORD=${words.length - 1}; _mem_autocomplete; echo "\${COMPREPLY[*]}"`
      const r = spawnSync('bash', ['-c', script], {env: childEnv(h.home, env), encoding: 'utf8'})
      return r.stdout.trim()
    }
    assert.equal(complete(['mem', 'exp']), 'export')
    assert.equal(complete(['mem', 'mcp', 'ins']), 'install')
    assert.equal(complete(['mem', 'import', '--dry']), '--dry-run')

    const zsh = mem(h.home, ['autocomplete', 'script', 'zsh'], {env}).stdout
    const zshFile = /MEM_AC_ZSH_SETUP_PATH=(\S+)/.exec(zsh)?.[1]
    assert.ok(zshFile, zsh)
    const functions = readFileSync(join(h.home, '.cache', 'mem', 'autocomplete', 'functions', 'zsh', '_mem'), 'utf8')
    for (const word of ['export', 'import', 'install', '--skip-invalid'])
      assert.ok(functions.includes(word), `zsh completion knows ${word}`)
  })
})
