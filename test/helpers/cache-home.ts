import {mkdtempSync, rmSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'

// Every `mem` a test spawns writes V8's code cache (src/code-cache.ts) into the user's cache
// folder. The suite gives its runs a folder of their own, so that testing leaves nothing in the
// cache of whoever runs the tests, and no test reads a cache an older build left there.
const dir = mkdtempSync(join(tmpdir(), 'mem-test-cache-'))
process.env.XDG_CACHE_HOME = dir
process.on('exit', () => rmSync(dir, {recursive: true, force: true}))
