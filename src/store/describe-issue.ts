import * as v from 'valibot'

/** A valibot issue in words: where (its dot path), then what. */
export function describeIssue(issue: v.BaseIssue<unknown> | undefined): string {
  if (!issue) return 'unknown problem'
  const where = v.getDotPath(issue)
  return where ? `${where}: ${issue.message}` : issue.message
}
