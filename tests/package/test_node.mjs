// test_node.mjs — the installed package through import (tests/package/node.sh).
//   node test_node.mjs VERSION
import Database from 'better-sqlite3';
import * as ifscore from 'ifscore';
import ifscoreDefault from 'ifscore';
import { check, done } from './checks.cjs';

const VERSION = process.argv[2];

check('import * as ifscore: names', Object.keys(ifscore).filter((k) => k !== 'default').sort(),
      ['getLoadablePath', 'load', 'version']);
check('import * and the default export are the same functions',
      ifscore.load === ifscoreDefault.load && ifscore.getLoadablePath === ifscoreDefault.getLoadablePath, true);
check('version', ifscore.version, VERSION);
const db = ifscore.load(new Database(':memory:'));
check('better-sqlite3: if_score after load()',
      db.prepare(`SELECT if_score('one two three', '{"max_words": 2}') AS s`).get().s, 0);
check('better-sqlite3: SQL cannot load libraries afterwards',
      (() => { try { db.prepare('SELECT load_extension(?)').get(ifscore.getLoadablePath()); } catch (e) { return e.message; } })(),
      'not authorized');

done('import');
