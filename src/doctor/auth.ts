import {join} from 'node:path'

import {authDir, readTokens, TOKEN_FILE_FIX, tokensFile} from '../auth/tokens.js'
import {asMemError} from '../errors.js'
import {DIR_MODE, FILE_MODE, isTempFile} from '../store/file/durable-file.js'
import {entries, entryType, modeProblem, tempFiles, type Finding} from './inspect.js'

/**
 * `auth/` holds the hashes of the tokens `mem mcp serve --http` accepts: whoever can write there
 * can let themselves in, so it is kept private like every other folder of mem's, its files
 * (`tokens.json`, `write.lock`) too. A token file that does not read is only reported: no copy
 * of it is kept, and a running server refuses every request until it is fixed.
 */
export function authFindings(home: string): Finding[] {
  const dir = authDir(home)
  if (entryType(dir) !== 'folder') return []
  const files = entries(dir)
    .filter((e) => e.isFile() && !isTempFile(e.name))
    .flatMap((e) => modeProblem(join(dir, e.name), FILE_MODE, undefined))
  return [
    ...modeProblem(dir, DIR_MODE, undefined),
    ...files,
    ...tempFiles(dir, undefined, false),
    ...tokenFileProblem(home),
  ]
}

function tokenFileProblem(home: string): Finding[] {
  try {
    readTokens(home)
    return []
  } catch (error) {
    const path = tokensFile(home)
    return [
      {
        kind: 'corrupt_file',
        path,
        // What to do is said once, as the fix.
        problem: asMemError(error).message.replace(/ It was left untouched\..*$/s, ''),
        fix: `no copy of it is kept: ${TOKEN_FILE_FIX}`,
        fixed: false,
      },
    ]
  }
}
