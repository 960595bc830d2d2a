/** "1 agent", "2 agents": a count and its noun, `many` for nouns that take more than an s. */
export function plural(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`
}
