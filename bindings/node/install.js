'use strict';
// install.js — the package's install step: builds the loadable library with
// make (build/ifscore.so, .dylib on macOS), unless it is already there.
// Needs make, a C compiler, pkg-config and SQLite's and PCRE2's development
// files (Debian: apt-get install gcc make pkg-config libsqlite3-dev libpcre2-dev).
const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const { libraryPath, ROOT } = require('./paths.js');

if (fs.existsSync(libraryPath)) {
  console.log(`ifscore: using ${libraryPath}`);
  process.exit(0);
}
const env = { ...process.env };
for (const k of ['MAKEFLAGS', 'MFLAGS', 'MAKELEVEL']) delete env[k];
const make = process.env.MAKE || 'make';
const r = spawnSync(make, ['-C', ROOT, 'build/' + require('node:path').basename(libraryPath)],
                    { stdio: 'inherit', env });
if (r.status !== 0 || !fs.existsSync(libraryPath)) {
  console.error(`ifscore: building the SQLite extension failed (${r.error ? r.error.message : 'make exited ' + r.status}).
It needs make, a C compiler, pkg-config and the development files of SQLite and
PCRE2; on Debian: apt-get install gcc make pkg-config libsqlite3-dev libpcre2-dev`);
  process.exit(1);
}
