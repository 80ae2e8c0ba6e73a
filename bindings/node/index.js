'use strict';
// ifscore — the ifscore SQLite extension for Node.js.
//
//   const Database = require('better-sqlite3');
//   const ifscore = require('ifscore');
//   const db = new Database('runs.db');
//   ifscore.load(db);
//   db.prepare("SELECT if_score('Hello world', '{\"max_words\": 5}') AS s").get();
//
// load() takes a better-sqlite3 Database or a node:sqlite DatabaseSync
// (Node >= 22.13, opened with { allowExtension: true }).  Neither is left able
// to load libraries from SQL: better-sqlite3 never enables SQL's
// load_extension(), and node:sqlite's extension loading is switched off again
// after the call.
const fs = require('node:fs');
const { libraryPath } = require('./paths.js');
const { version } = require('../../package.json');

function getLoadablePath() {
  if (!fs.existsSync(libraryPath)) {
    throw new Error(`ifscore: ${libraryPath} is missing: the package's install step builds it ` +
      '(npm rebuild ifscore; it needs make, a C compiler, pkg-config and the development files ' +
      'of SQLite and PCRE2)');
  }
  return libraryPath;
}

function load(db) {
  if (db && typeof db.enableLoadExtension === 'function' && typeof db.loadExtension === 'function') {
    // node:sqlite's DatabaseSync
    const path = getLoadablePath();
    try {
      db.enableLoadExtension(true);
    } catch (e) {
      throw new Error('ifscore: this node:sqlite database does not allow extensions; open it with ' +
        'new DatabaseSync(path, { allowExtension: true })', { cause: e });
    }
    try {
      db.loadExtension(path);
    } finally {
      db.enableLoadExtension(false);
    }
    return db;
  }
  if (db && typeof db.loadExtension === 'function') {
    // better-sqlite3: the C API is enabled for its own loadExtension() only
    db.loadExtension(getLoadablePath());
    return db;
  }
  throw new TypeError('ifscore.load(db): expected a better-sqlite3 Database or a node:sqlite ' +
    'DatabaseSync, got ' + describe(db));
}

// What load() was given instead of a database, for its error.
function describe(x) {
  if (x === null || x === undefined) return String(x);
  if (typeof x === 'string') return 'the string ' + JSON.stringify(x.length > 40 ? x.slice(0, 40) + '...' : x);
  if (typeof x !== 'object' && typeof x !== 'function') return 'the ' + typeof x + ' ' + String(x);
  const name = x.constructor && x.constructor.name;
  return name && name !== 'Object' ? 'a ' + name : 'an object';
}

module.exports = { getLoadablePath, load, version };
