/** The terminal's size, in cells. */
export interface View {
  columns: number
  rows: number
}

/** What a terminal that says nothing of its size is taken to be. */
export const DEFAULT_VIEW: View = {columns: 80, rows: 24}

/** The most lines a notice or an error takes under the body; a longer one is cut. */
export const NOTICE_LINES = 3

/**
 * Rows the browser draws: one fewer than the terminal has, so ink never writes the last row
 * (which would scroll the screen and leave the next frame drawn over the old one).
 */
export function screenRows(view: View): number {
  return Math.max(5, view.rows - 1)
}

/** Rows for the body, between the header and search bar above and the notice and key hints below. */
export function bodyRows(view: View, noticeLines: number): number {
  return Math.max(1, screenRows(view) - 3 - noticeLines)
}

/** How far PgUp and PgDn move in a list: the rows it shows, less its footer. */
export function pageRows(view: View): number {
  return Math.max(1, bodyRows(view, 0) - 1)
}
