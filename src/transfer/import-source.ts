import {fstatSync, readFileSync} from 'node:fs'
import {mkdtemp, open, rm, type FileHandle} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {pipeline} from 'node:stream/promises'
import type {Readable} from 'node:stream'

import {describeErrno, MemError} from '../errors.js'
import {FILE_MODE} from '../store/file/durable-file.js'

const CHUNK = 256 * 1024

/**
 * The bytes of an import, read twice: once to check every line, once to write. Nothing holds
 * the whole file, so memory stays the same whatever its size.
 */
export interface ImportSource {
  /** Bytes in all, for progress. */
  readonly size: number
  /** The bytes from the start, in chunks. */
  chunks(): AsyncIterable<Buffer>
  /** Undefined while the bytes are those first read; else what changed. */
  changed(): Promise<string | undefined>
  close(): Promise<void>
}

/** Text already in memory (a caller without a file: the benchmarks load their sets this way). */
export function textSource(text: string): ImportSource {
  const bytes = Buffer.from(text, 'utf8')
  return {
    size: bytes.length,
    async *chunks() {
      for (let at = 0; at < bytes.length; at += CHUNK) yield bytes.subarray(at, at + CHUNK)
    },
    changed: async () => undefined,
    close: async () => {},
  }
}

/**
 * A regular file, read through one open descriptor: renaming or replacing the path meanwhile
 * does not change what is read, and a change in place shows in its size or time.
 */
async function fileSource(handle: FileHandle, cleanup: () => Promise<void> = async () => {}): Promise<ImportSource> {
  const first = await handle.stat()
  return {
    size: first.size,
    async *chunks() {
      for (let at = 0; ;) {
        const buffer = Buffer.allocUnsafe(CHUNK)
        const {bytesRead} = await handle.read(buffer, 0, CHUNK, at)
        if (bytesRead === 0) return
        at += bytesRead
        yield buffer.subarray(0, bytesRead)
      }
    },
    async changed() {
      const now = await handle.stat()
      return now.size !== first.size || now.mtimeMs !== first.mtimeMs ? 'the file changed while it was read' : undefined
    },
    async close() {
      await handle.close()
      await cleanup()
    },
  }
}

/**
 * The file to import, or `-` for stdin. What cannot be read twice (a pipe into stdin, or one
 * such as `<(...)`) is first copied to a private temporary file, removed when the import ends;
 * stdin redirected from a file (`mem import - < export.jsonl`) is that file, read in place, so
 * that a large one needs no room in the temporary folder.
 */
export async function openImportSource(path: string, stdin: Readable): Promise<ImportSource> {
  if (path === '-') {
    if ((stdin as Readable & {isTTY?: boolean}).isTTY)
      throw new MemError('invalid_input', 'no input on stdin: pipe a file into "mem import -" or give a file name')
    return (await stdinFile()) ?? spooled(stdin)
  }
  let handle: FileHandle
  try {
    handle = await open(path, 'r')
    const stats = await handle.stat()
    if (stats.isDirectory()) {
      await handle.close()
      throw Object.assign(new Error('is a directory'), {code: 'EISDIR'})
    }
    if (stats.isFile()) return await fileSource(handle)
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    const why = typeof code === 'string' ? describeErrno(code) : (error as Error).message
    throw new MemError('invalid_input', `cannot read the import from ${path}: ${why}`)
  }
  return spooled(handle.createReadStream())
}

/**
 * Stdin as a file of its own, when it is a regular file not read from yet: opened again through
 * /dev/stdin, which on Linux is a descriptor of its own read from the start. Undefined elsewhere,
 * or when something read from it before (`{ head -1; mem import -; } < file`): it is copied,
 * from where it stands, as a pipe is.
 */
async function stdinFile(): Promise<ImportSource | undefined> {
  try {
    const was = fstatSync(0)
    if (!was.isFile() || !/^pos:\s+0$/m.test(readFileSync('/proc/self/fdinfo/0', 'utf8'))) return undefined
    const handle = await open('/dev/stdin', 'r')
    const now = await handle.stat()
    if (now.ino === was.ino && now.dev === was.dev) return await fileSource(handle)
    await handle.close()
  } catch {
    // Not Linux, or no /proc: copied.
  }
  return undefined
}

async function spooled(input: Readable): Promise<ImportSource> {
  const cannot = (where: string, error: unknown): MemError => {
    const code = (error as NodeJS.ErrnoException).code
    const why = typeof code === 'string' ? describeErrno(code) : (error as Error).message
    return new MemError(
      'io_error',
      `cannot keep a copy of the input to import in ${where}: ${why}. Give the file's name instead of -, or set TMPDIR to a folder with room for it`,
    )
  }
  let dir: string
  try {
    dir = await mkdtemp(join(tmpdir(), 'mem-import-'))
  } catch (error) {
    throw cannot(tmpdir(), error)
  }
  const cleanup = (): Promise<void> => rm(dir, {recursive: true, force: true})
  try {
    const file = join(dir, 'input')
    const out = await open(file, 'wx', FILE_MODE)
    await pipeline(input, out.createWriteStream())
    return await fileSource(await open(file, 'r'), cleanup)
  } catch (error) {
    await cleanup()
    throw cannot(dir, error)
  }
}
