// test_types.ts — index.d.ts as a TypeScript user meets it (tsc --strict
// --noEmit, in tests/package/node.sh): what must type-check does, and what
// must not is marked @ts-expect-error (tsc fails if it stops being an error).
import * as ifscore from 'ifscore';

const path: string = ifscore.getLoadablePath();
const version: string = ifscore.version;

// load() returns the database it was given, with its own type
const better = { loadExtension(p: string, entryPoint?: string) { return this; }, name: 'runs.db' };
const same: typeof better = ifscore.load(better);
const nodeSqlite = { enableLoadExtension(allow: boolean): void {}, loadExtension(p: string): void {} };
ifscore.load(nodeSqlite);

// @ts-expect-error a number is not a database
ifscore.load(42);
// @ts-expect-error an object without loadExtension is not a database
ifscore.load({ prepare() {} });

export { path, version, same };
