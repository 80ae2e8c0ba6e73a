// Types of the ifscore package (bindings/node/index.js).

/** A better-sqlite3 Database, as far as load() uses it. */
export interface BetterSqlite3Database {
  loadExtension(path: string, entryPoint?: string): unknown;
}

/** A node:sqlite DatabaseSync opened with { allowExtension: true }. */
export interface NodeSqliteDatabase {
  enableLoadExtension(allow: boolean): void;
  loadExtension(path: string): void;
}

/** Absolute path of the loadable library the package built. */
export function getLoadablePath(): string;

/**
 * Loads ifscore into db and returns db. Extension loading is left disabled
 * for SQL (better-sqlite3 never enables load_extension(); node:sqlite's
 * enableLoadExtension is set to false again).
 */
export function load<T extends BetterSqlite3Database | NodeSqliteDatabase>(db: T): T;

/** The package's version, also what SQL's if_version() returns. */
export const version: string;
