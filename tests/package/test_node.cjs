'use strict';
// test_node.cjs — the installed package through require() (tests/package/node.sh
// copies it into a project that has ifscore and better-sqlite3 installed).
//   node test_node.cjs VERSION
const path = require('node:path');
const Database = require('better-sqlite3');
const ifscore = require('ifscore');
const { check, thrown, done } = require('./checks.cjs');

const VERSION = process.argv[2];

const SCORE_SQL = `SELECT if_score('Hello world', '{"max_words": 5, "must_include": "hello"}') AS score,
                          if_reason('Hello world', '{"max_words": 1}') AS reason`;
const SCORE_ROW = { score: 1, reason: '0/1 satisfied; failed: max_words<=1 (got 2)' };

// --- the package
const lib = ifscore.getLoadablePath();
check('getLoadablePath() is absolute', path.isAbsolute(lib), true);
check('getLoadablePath() is the installed package\'s library', lib,
      path.join(process.cwd(), 'node_modules', 'ifscore', 'build', 'ifscore.so'));
check('version is the VERSION file\'s', ifscore.version, VERSION);

// --- better-sqlite3
const db = new Database(':memory:');
check('better-sqlite3: load(db) returns db', ifscore.load(db) === db, true);
check('better-sqlite3: if_version()', db.prepare('SELECT if_version() AS v').get().v, VERSION);
check('better-sqlite3: if_score, if_reason', db.prepare(SCORE_SQL).get(), SCORE_ROW);
check('better-sqlite3: SQL cannot load libraries afterwards',
      thrown(() => db.prepare('SELECT load_extension(?)').get(lib)), ['SqliteError', 'not authorized']);

// --- node:sqlite's sequence, on a stand-in that records the calls
function standIn({ allow = true, loadFails = false } = {}) {
  const calls = [];
  return {
    calls,
    enableLoadExtension(on) {
      if (on && !allow) throw new Error('Cannot enable extension loading because it was disabled at database creation.');
      calls.push(`enable(${on})`);
    },
    loadExtension(p) {
      calls.push(`load(${p === lib ? 'lib' : p})`);
      if (loadFails) throw new Error('load failed');
    },
  };
}
let s = standIn();
ifscore.load(s);
check('node:sqlite (stand-in): enable, load, disable', s.calls, ['enable(true)', 'load(lib)', 'enable(false)']);
s = standIn({ loadFails: true });
check('node:sqlite (stand-in): a failed load still disables',
      [thrown(() => ifscore.load(s)), s.calls],
      [['Error', 'load failed'], ['enable(true)', 'load(lib)', 'enable(false)']]);
s = standIn({ allow: false });
check('node:sqlite (stand-in): opened without allowExtension, says what to do', thrown(() => ifscore.load(s)),
      ['Error', 'ifscore: this node:sqlite database does not allow extensions; open it with new DatabaseSync(path, { allowExtension: true })']);
const notDb = 'ifscore.load(db): expected a better-sqlite3 Database or a node:sqlite DatabaseSync, got ';
check('load(42): TypeError naming what it got', thrown(() => ifscore.load(42)),
      ['TypeError', notDb + 'the number 42']);
check('load(path): TypeError naming the string', thrown(() => ifscore.load('runs.db')),
      ['TypeError', notDb + 'the string "runs.db"']);
check('load(null), load(undefined), load({}), load(new Map())',
      [null, undefined, {}, new Map()].map((x) => thrown(() => ifscore.load(x))[1]),
      [notDb + 'null', notDb + 'undefined', notDb + 'an object', notDb + 'a Map']);

// --- node:sqlite itself: test_node_sqlite.cjs, under a Node that has it

done('require');
