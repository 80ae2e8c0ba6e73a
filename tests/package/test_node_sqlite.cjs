'use strict';
// test_node_sqlite.cjs — the installed package with Node's own node:sqlite
// (tests/package/node.sh runs it under a Node 22 from npm, in the project
// where ifscore is installed).
//   node test_node_sqlite.cjs VERSION
const ifscore = require('ifscore');
const { check, thrown, done } = require('./checks.cjs');
const { DatabaseSync } = require('node:sqlite');

const VERSION = process.argv[2];

if (typeof DatabaseSync.prototype.loadExtension !== 'function') {
  console.log(`FAIL node:sqlite in ${process.version} has no loadExtension (Node >= 22.13 has)`);
  process.exit(1);
}
const lib = ifscore.getLoadablePath();
const db = new DatabaseSync(':memory:', { allowExtension: true });
check(`node:sqlite (${process.version}): load(db) returns db`, ifscore.load(db) === db, true);
check('node:sqlite: if_version()', db.prepare('SELECT if_version() AS v').get().v, VERSION);
const row = db.prepare(`SELECT if_score('Hello world', '{"max_words": 5, "must_include": "hello"}') AS score,
                               if_reason('Hello world', '{"max_words": 1}') AS reason`).get();
check('node:sqlite: if_score, if_reason', { ...row },
      { score: 1, reason: '0/1 satisfied; failed: max_words<=1 (got 2)' });
check('node:sqlite: SQL cannot load libraries afterwards',
      thrown(() => db.prepare('SELECT load_extension(?)').get(lib)), ['Error', 'not authorized']);
check('node:sqlite: loading is off again after load()', thrown(() => db.loadExtension(lib)),
      ['Error', 'extension loading is not allowed']);
const closed = new DatabaseSync(':memory:');
check('node:sqlite: opened without allowExtension, load() says what to do', thrown(() => ifscore.load(closed)),
      ['Error', 'ifscore: this node:sqlite database does not allow extensions; open it with ' +
                'new DatabaseSync(path, { allowExtension: true })']);

done('node:sqlite');
