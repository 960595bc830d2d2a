/**
 * Builds dist/ for the `mem` binary: one ES module per command (oclif finds them through the
 * manifest and loads only the one that runs) plus shared chunks, bundled with esbuild so a
 * cold `mem search` loads a handful of files instead of several hundred. Type checking stays
 * with tsc (`npm run lint`, and `tsc --noEmit` in `npm run build`).
 *
 * Only the packages on the hot paths are bundled; everything else (ink, react, the MCP SDK,
 * anything added later) stays an ordinary import from node_modules, loaded when a command
 * actually imports it. See docs/performance.md.
 */
import {createHash} from 'node:crypto'
import {cpSync, readdirSync, readFileSync, statSync} from 'node:fs'
import {dirname, join, relative} from 'node:path'
import {fileURLToPath} from 'node:url'

import {build} from 'esbuild'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const src = join(root, 'src')

/** Bundled into dist: what `mem search` and `mem add` load, and what those packages import. */
const BUNDLED = new Set(['@oclif/core', 'valibot', 'lowdb', 'stemmer', 'ulid', 'chrono-node'])
/** Optional imports of bundled packages that must stay runtime lookups (oclif's TypeScript support). */
const NEVER_BUNDLED = new Set(['typescript', 'ts-node', 'tsx'])

function files(dir, keep) {
  return readdirSync(dir).flatMap((name) => {
    const full = join(dir, name)
    if (statSync(full).isDirectory()) return files(full, keep)
    return keep(name) ? [full] : []
  })
}

function packageOf(specifier) {
  const parts = specifier.split('/')
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0]
}

const hotPathOnly = {
  name: 'hot-path-only',
  setup(b) {
    b.onResolve({filter: /^[^./]/}, (args) => {
      if (args.path.startsWith('node:')) return {external: true}
      const pkg = packageOf(args.path)
      if (NEVER_BUNDLED.has(pkg)) return {external: true}
      const fromSource = !args.importer.includes(`${'/'}node_modules${'/'}`)
      if (fromSource && !BUNDLED.has(pkg)) return {external: true}
      return undefined
    })
  },
}

/**
 * Which ranking code a saved search index comes from (src/store/search-code.ts): the search
 * sources and the version of the stemmer, which makes the terms an index keeps.
 */
function searchSignature() {
  const hash = createHash('sha256')
  for (const file of files(join(src, 'search'), (n) => /\.tsx?$/.test(n)).sort())
    hash.update(relative(src, file)).update(readFileSync(file))
  hash.update(readFileSync(join(root, 'node_modules', 'stemmer', 'package.json')))
  return hash.digest('hex').slice(0, 16)
}

const sources = (dir) => files(join(src, dir), (n) => /\.tsx?$/.test(n) && !n.endsWith('.d.ts'))
// Hooks are entry points too: oclif loads them by path from package.json.
const commands = [...sources('commands'), ...sources('hooks')]
const entryPoints = Object.fromEntries(commands.map((file) => [relative(src, file).replace(/\.tsx?$/, ''), file]))
// The local embedding model runs on a thread started from this file (src/meaning/local-embedder.ts finds it).
entryPoints['meaning/local-embedder-worker'] = join(src, 'meaning', 'local-embedder-worker.ts')
// bin/run.js starts oclif from this module, so the binary and the commands share one bundled @oclif/core.
entryPoints.main = 'mem:main'

const mainEntry = {
  name: 'main-entry',
  setup(b) {
    b.onResolve({filter: /^mem:main$/}, () => ({path: 'main', namespace: 'mem'}))
    b.onLoad({filter: /.*/, namespace: 'mem'}, () => ({
      contents: "export {execute} from '@oclif/core'",
      resolveDir: root,
      loader: 'js',
    }))
  },
}

const common = {
  bundle: true,
  format: 'esm',
  platform: 'node',
  target: 'node20.19',
  // CommonJS packages bundled into ES modules still call require() for Node's own modules.
  banner: {
    js: "import {createRequire as __memCreateRequire} from 'node:module'; const require = __memCreateRequire(import.meta.url);",
  },
  define: {MEM_SEARCH_SIGNATURE: JSON.stringify(searchSignature())},
  logLevel: 'warning',
  metafile: true,
  absWorkingDir: root,
}

await build({
  ...common,
  entryPoints,
  outdir: join(root, 'dist'),
  chunkNames: 'chunks/[name]-[hash]',
  splitting: true,
  jsx: 'automatic',
  plugins: [mainEntry, hotPathOnly],
})

/**
 * What the fast path leaves out of its file: PostgreSQL's driver (src/fast.ts declines when
 * MEM_STORE is set, so its opener is never reached here), meaning's embedders, vectors and their
 * upkeep (it declines when meaning is on: src/meaning/ is a sixth of the file otherwise), and
 * chrono-node, which only a date phrase needs and which is bundled into a file of its own beside
 * it, reached by require().
 */
const MEANING_STUBS = {
  'open-meaning': 'export function openMeaning() { return undefined }',
  'vector-keeper': 'export function vectorKeeper() { return undefined }',
  'agent-vectors': NEVER_HERE('AgentVectors'),
  'vector-upkeep': NEVER_HERE('VectorUpkeep'),
}

function NEVER_HERE(name) {
  return `export class ${name} { constructor() { throw new Error('meaning runs through oclif: the fast path declines when it is on') } }`
}

const fastPathOnly = {
  name: 'fast-path-only',
  setup(b) {
    b.onResolve({filter: /[/](open-meaning|vector-keeper|agent-vectors|vector-upkeep)\.js$/}, (args) => ({
      path: /([a-z-]+)\.js$/.exec(args.path)[1],
      namespace: 'fast-path-meaning',
    }))
    b.onLoad({filter: /.*/, namespace: 'fast-path-meaning'}, (args) => ({
      contents: MEANING_STUBS[args.path],
      loader: 'js',
    }))
    b.onResolve({filter: /[/]postgres-store\.js$/}, () => ({path: 'postgres-store', namespace: 'fast-path'}))
    b.onLoad({filter: /^postgres-store$/, namespace: 'fast-path'}, () => ({
      contents:
        "export const PostgresStore = {open() { throw new Error('PostgreSQL is opened through oclif: the fast path declines when MEM_STORE is set') }}",
      loader: 'js',
    }))
    b.onResolve({filter: /^chrono-node[/]en$/}, (args) =>
      args.kind === 'entry-point' ? undefined : {path: 'chrono', namespace: 'fast-path'},
    )
    b.onLoad({filter: /^chrono$/, namespace: 'fast-path'}, () => ({
      contents: "module.exports = require('./fast-chrono.cjs')",
      loader: 'js',
    }))
  },
}

/**
 * bin/run.js tries this first: `mem search`, `add`, `list` and `resume` without oclif
 * (src/fast.ts). One file, not the shared chunks: a cold search resolves, reads and links each
 * module it loads, and one file of what it needs starts faster than thirty of them
 * (docs/performance.md). It is CommonJS so that src/code-cache.ts can compile it with the code
 * V8 cached on an earlier run, which an ES module cannot be in Node 20. The oclif commands keep
 * their own copies in the chunks; a process that the fast path declines uses only those.
 */
const fast = await build({
  ...common,
  format: 'cjs',
  entryPoints: {fast: join(src, 'fast.ts'), 'fast-chrono': 'chrono-node/en'},
  outdir: join(root, 'dist'),
  outExtension: {'.js': '.cjs'},
  // import.meta has no CommonJS twin: createRequire(import.meta.url) gets this file's URL.
  banner: {js: "const __memFileUrl = require('node:url').pathToFileURL(__filename).href;"},
  define: {...common.define, 'import.meta.url': '__memFileUrl'},
  plugins: [fastPathOnly],
  external: [...NEVER_BUNDLED, './fast-chrono.cjs'],
})

/** The code cache compiles dist/fast.cjs as a script, where import() has no loader to call. */
const dynamicImports = fast.metafile.outputs['dist/fast.cjs'].imports.filter((i) => i.kind === 'dynamic-import')
if (dynamicImports.length > 0) {
  throw new Error(`dist/fast.cjs must not import() at run time: ${dynamicImports.map((i) => i.path).join(', ')}`)
}

// CommonJS too, so that bin/run.js can require it without Node's ES module loader.
await build({
  ...common,
  format: 'cjs',
  entryPoints: {'code-cache': join(src, 'code-cache.ts')},
  outdir: join(root, 'dist'),
  outExtension: {'.js': '.cjs'},
  banner: {},
})

/** Packages the fast path must never load, statically or through import(). */
const NOT_ON_FAST_PATH = /(^|\/node_modules\/)(@oclif\/|ink\b|react\b|@modelcontextprotocol\/|zod\b)/

/** Everything dist/fast.cjs can load: the sources bundled into it and the imports left to run time. */
function fastPathLoads(metafile) {
  const output = metafile.outputs['dist/fast.cjs']
  return [...Object.keys(output.inputs), ...output.imports.map((imported) => imported.path)]
}

const forbidden = fastPathLoads(fast.metafile).filter((path) => NOT_ON_FAST_PATH.test(path) || /[/]pg[/-]/.test(path))
if (forbidden.length > 0) {
  throw new Error(
    `dist/fast.cjs must not load oclif, ink, react, the MCP SDK or PostgreSQL's driver, but reaches:\n  ${[...new Set(forbidden)].slice(0, 5).join('\n  ')}`,
  )
}

// The PostgreSQL schema is plain SQL files read at run time (src/store/postgres/migrate.ts).
cpSync(join(src, 'store', 'postgres', 'migrations'), join(root, 'dist', 'migrations'), {recursive: true})
