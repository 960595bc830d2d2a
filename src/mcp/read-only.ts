import {operations, type AnyOperation} from '../ops/index.js'

/**
 * The read-only rule, stated once for every surface that offers it (`--read-only` on stdio and
 * HTTP, read-only tokens): a read-only caller may see and call the tools whose operation
 * definition says they never write (`annotations.readOnlyHint`), and nothing else. The names
 * come from the definitions, so a new operation is placed by saying whether it writes.
 */
export function mayCall(readOnly: boolean, tool: string): boolean {
  return !readOnly || readingTools().includes(tool)
}

/** The tools a read-only caller may call, in the order tools/list shows them. */
export function readingTools(): string[] {
  return operations.filter((op) => !writes(op)).map((op) => op.tool)
}

function writes(op: AnyOperation): boolean {
  return !op.annotations.readOnlyHint
}

/** "memory_search and checkpoint_resume", for refusals and help texts that name what is left. */
export function readingToolsInWords(): string {
  return toolsInWords(readingTools())
}

/** Tool names as a sentence lists them: "a, b and c". */
export function toolsInWords(names: string[]): string {
  return names.length <= 1 ? names.join('') : `${names.slice(0, -1).join(', ')} and ${names.at(-1)}`
}
