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
const BUNDLED = new Set(['@oclif/core', 'valibot', 'lowdb', 'minisearch', 'stemmer', 'ulid', 'chrono-node'])
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
 * Which ranking code a saved search index comes from (src/store/search-cache.ts): the search
 * sources and the versions of the libraries that tokenize and index.
 */
function searchSignature() {
  const hash = createHash('sha256')
  for (const file of files(join(src, 'search'), (n) => /\.tsx?$/.test(n)).sort())
    hash.update(relative(src, file)).update(readFileSync(file))
  for (const pkg of ['minisearch', 'stemmer'])
    hash.update(readFileSync(join(root, 'node_modules', pkg, 'package.json')))
  return hash.digest('hex').slice(0, 16)
}

const sources = (dir) => files(join(src, dir), (n) => /\.tsx?$/.test(n) && !n.endsWith('.d.ts'))
// Hooks are entry points too: oclif loads them by path from package.json.
const commands = [...sources('commands'), ...sources('hooks')]
const entryPoints = Object.fromEntries(commands.map((file) => [relative(src, file).replace(/\.tsx?$/, ''), file]))
// bin/run.js starts oclif from this module, so the binary and the commands share one bundled @oclif/core.
entryPoints.main = 'mem:main'
// bin/run.js tries this first: `mem search` and `mem add` without oclif (src/fast.ts).
entryPoints.fast = join(src, 'fast.ts')

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

const result = await build({
  entryPoints,
  outdir: join(root, 'dist'),
  chunkNames: 'chunks/[name]-[hash]',
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20.19',
  jsx: 'automatic',
  // CommonJS packages bundled into ES modules still call require() for Node's own modules.
  banner: {
    js: "import {createRequire as __memCreateRequire} from 'node:module'; const require = __memCreateRequire(import.meta.url);",
  },
  define: {MEM_SEARCH_SIGNATURE: JSON.stringify(searchSignature())},
  plugins: [mainEntry, hotPathOnly],
  logLevel: 'warning',
  metafile: true,
  absWorkingDir: root,
})

/** Packages the fast path must never load, statically or through import(). */
const NOT_ON_FAST_PATH = /(^|\/node_modules\/)(@oclif\/|ink\b|react\b|@modelcontextprotocol\/)/

/**
 * Everything dist/fast.js can load, following static and dynamic imports through the chunks:
 * bundled sources (the outputs' inputs) and the packages left as runtime imports.
 */
function fastPathLoads(metafile) {
  const outputs = metafile.outputs
  const seen = new Set()
  const loads = []
  const visit = (file) => {
    if (seen.has(file)) return
    seen.add(file)
    loads.push(...Object.keys(outputs[file].inputs))
    for (const imported of outputs[file].imports) {
      if (imported.external) loads.push(imported.path)
      else visit(imported.path)
    }
  }
  visit('dist/fast.js')
  return loads
}

const forbidden = fastPathLoads(result.metafile).filter((path) => NOT_ON_FAST_PATH.test(path))
if (forbidden.length > 0) {
  throw new Error(
    `dist/fast.js must not load oclif, ink, react or the MCP SDK, but reaches:\n  ${[...new Set(forbidden)].slice(0, 5).join('\n  ')}`,
  )
}

// The PostgreSQL schema is plain SQL files read at run time (src/store/postgres/migrate.ts).
cpSync(join(src, 'store', 'postgres', 'migrations'), join(root, 'dist', 'migrations'), {recursive: true})
