import {createHash, randomBytes} from 'node:crypto'
import {chmodSync, readFileSync, statSync} from 'node:fs'
import {join} from 'node:path'

import {asMemError, MemError} from '../errors.js'
import {DIR_MODE, fileIdentity, makeDirDurably, writeFileDurably} from '../store/file/durable-file.js'
import {fsError} from '../store/file/fs-errors.js'
import {withLock} from '../store/file/lock.js'
import {checkAgentPattern} from './agent-patterns.js'

/**
 * Bearer tokens for `mem mcp serve --http`. A token is 256 random bits shown once; only its
 * SHA-256 is kept, in `<home>/auth/tokens.json` (0600, folder 0700), so the file alone lets
 * nobody in. A hash of that much randomness needs no salt or slow KDF: nothing can be guessed.
 */
export interface TokenRecord {
  name: string
  /** Hex SHA-256 of the token text. */
  hash: string
  /** Agent patterns the token may use; null for every agent. */
  agents: string[] | null
  read_only: boolean
  created_at: string
  expires_at: string | null
}

interface TokenFile {
  version: 1
  tokens: TokenRecord[]
}

export const TOKEN_PREFIX = 'mem_'
const TOKEN_PATTERN = /^mem_[A-Za-z0-9_-]{43}$/
const NAME_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/

export function authDir(home: string): string {
  return join(home, 'auth')
}

export function tokensFile(home: string): string {
  return join(authDir(home), 'tokens.json')
}

export function hashToken(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex')
}

/** True for text shaped like a token mem made; anything else is refused before hashing. */
export function looksLikeToken(text: string): boolean {
  return TOKEN_PATTERN.test(text)
}

export function readTokens(home: string): TokenRecord[] {
  const path = tokensFile(home)
  let text: string
  try {
    text = readFileSync(path, 'utf8')
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return []
    throw error
  }
  return decode(path, text)
}

function decode(path: string, text: string): TokenRecord[] {
  let parsed: unknown
  try {
    parsed = JSON.parse(text)
  } catch {
    throw damagedTokenFile(path, 'it is not valid JSON')
  }
  const file = parsed as Partial<TokenFile>
  if (!file || file.version !== 1 || !Array.isArray(file.tokens))
    throw damagedTokenFile(path, 'it is not a mem token file (version 1)')
  return file.tokens
}

/** No copy of the token file is kept, so the way out is by hand; `mem doctor` says the same. */
export const TOKEN_FILE_FIX =
  'repair it by hand, or move it away and make new tokens with "mem token create"; until then "mem mcp serve --http" refuses every request'

function damagedTokenFile(path: string, problem: string): MemError {
  return new MemError(
    'corrupt_file',
    `${path} cannot be used: ${problem}. It was left untouched. To go on, ${TOKEN_FILE_FIX}.`,
  )
}

export interface NewToken {
  name?: string
  agents?: string[]
  readOnly: boolean
  /** Lifetime in milliseconds; none for a token that does not expire. */
  expiresInMs?: number
}

/** Makes a token, stores its hash, and returns the token text: the only time it exists outside the client. */
export async function createToken(
  home: string,
  spec: NewToken,
  now = new Date(),
): Promise<{token: string; record: TokenRecord}> {
  if (spec.name !== undefined && !NAME_PATTERN.test(spec.name)) {
    throw new MemError(
      'invalid_input',
      `--name ${JSON.stringify(spec.name)}: a token name is 1-64 letters, digits, ".", "_" or "-", starting with a letter or digit`,
    )
  }
  const agents = spec.agents && spec.agents.length > 0 ? spec.agents.map((p) => checkAgentPattern(p)) : null
  const token = `${TOKEN_PREFIX}${randomBytes(32).toString('base64url')}`
  return updateTokens(home, (tokens) => {
    const name = spec.name ?? nextName(tokens)
    if (tokens.some((t) => t.name === name))
      throw new MemError(
        'invalid_input',
        `a token named "${name}" exists already; choose another --name or revoke it first`,
      )
    const record: TokenRecord = {
      name,
      hash: hashToken(token),
      agents,
      read_only: spec.readOnly,
      created_at: now.toISOString(),
      expires_at: spec.expiresInMs === undefined ? null : new Date(now.getTime() + spec.expiresInMs).toISOString(),
    }
    return {tokens: [...tokens, record], result: {token, record}}
  })
}

/**
 * Takes a token back. A revoke that fails (a full disk, say) leaves the token working, so the
 * error says so in as many words, and what to do: a user who misses it would think the token dead.
 */
export async function revokeToken(home: string, name: string): Promise<TokenRecord> {
  try {
    return await updateTokens(home, (tokens) => {
      const record = tokens.find((t) => t.name === name)
      if (!record) throw new MemError('not_found', `no token named "${name}"; "mem token list" shows the names`)
      return {tokens: tokens.filter((t) => t !== record), result: record}
    })
  } catch (error) {
    const e = asMemError(error)
    if (e.code === 'not_found') throw e
    // A file-system error ends with its errno code in parentheses (describeErrno).
    const full = /\((ENOSPC|EDQUOT)\)/.test(e.message)
    const then = full ? 'Free some disk space, then run' : 'Once that is put right, run'
    throw new MemError(
      e.code,
      `${e.message.replace(/\.$/, '')}. Token "${name}" was NOT revoked: it still works, and servers still accept it. ${then} "mem token revoke ${name}" again.`,
      e.details,
    )
  }
}

function nextName(tokens: TokenRecord[]): string {
  const taken = new Set(tokens.map((t) => t.name))
  let n = 1
  while (taken.has(`token-${n}`)) n++
  return `token-${n}`
}

/** Read, change and durably replace the file under the auth folder's lock, so two `mem token` runs never lose each other's change. */
async function updateTokens<T>(
  home: string,
  change: (tokens: TokenRecord[]) => {tokens: TokenRecord[]; result: T},
): Promise<T> {
  const dir = authDir(home)
  makeDirDurably(dir)
  keepPrivate(dir)
  return withLock(dir, () => {
    const {tokens, result} = change(readTokens(home))
    const file: TokenFile = {version: 1, tokens}
    writeFileDurably(tokensFile(home), `${JSON.stringify(file, null, 2)}\n`, {durable: true, backup: false})
    return result
  })
}

/**
 * Whoever can write to `auth/` can put a token of their own in it, so a folder found looser than
 * 0700 (made by hand, or by a tool under a loose umask) is made private before a token is written
 * there; `mem doctor` reports and repairs it too.
 */
function keepPrivate(dir: string): void {
  const mode = statSync(dir).mode & 0o777
  if (mode === DIR_MODE) return
  try {
    chmodSync(dir, DIR_MODE)
  } catch (error) {
    throw fsError(
      error,
      'make private (mode 0700)',
      dir,
      `its mode is 0${mode.toString(8)}, so anyone it lets in could add a token of their own. Nothing was changed`,
    )
  }
}

/**
 * The tokens a running server accepts. The file is looked at on every check (one stat) and
 * read again when it changed, so `mem token revoke` takes effect on the next request.
 * A file that cannot be read lets nobody in until it is fixed.
 */
export class TokenRegistry {
  private identity: string | undefined = 'unread'
  private byHash = new Map<string, TokenRecord>()
  private problem: string | undefined

  constructor(
    private readonly home: string,
    private readonly warn: (message: string) => void = () => {},
  ) {}

  /** The record of a valid, unexpired token; undefined for anything else, without saying why. */
  verify(token: string, now = Date.now()): TokenRecord | undefined {
    this.refresh()
    if (!looksLikeToken(token)) return undefined
    const record = this.byHash.get(hashToken(token))
    if (!record) return undefined
    if (record.expires_at !== null && Date.parse(record.expires_at) <= now) return undefined
    return record
  }

  count(): number {
    this.refresh()
    return this.byHash.size
  }

  private refresh(): void {
    const path = tokensFile(this.home)
    const identity = fileIdentity(path)
    if (identity === this.identity) return
    this.identity = identity
    try {
      this.byHash = new Map(readTokens(this.home).map((t) => [t.hash, t]))
      this.problem = undefined
    } catch (error) {
      this.byHash = new Map()
      const message = (error as Error).message
      if (message !== this.problem) this.warn(`the token file cannot be read, so every request is refused: ${message}`)
      this.problem = message
    }
  }
}
