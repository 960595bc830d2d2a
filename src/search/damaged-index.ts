/**
 * Loaded postings that turn out damaged when read (a saved index reads them where a search asks):
 * whoever loaded them builds the index anew. A module of its own, so that catching it loads no
 * search code.
 */
export class DamagedIndex extends Error {}
