'use strict';
// checks.cjs — what the Node package's tests share (node.sh copies it next to
// them): check() compares as JSON and prints ok/FAIL, thrown() gives an
// exception's class and message, done() prints the tally and sets the exit
// status.
let passed = 0, failed = 0;

function check(name, got, want) {
  const g = JSON.stringify(got), w = JSON.stringify(want);
  if (g === w) { passed++; console.log(`ok   ${name}`); }
  else { failed++; console.log(`FAIL ${name}\n     got:  ${g}\n     want: ${w}`); }
}

function thrown(fn) {
  try { fn(); } catch (e) { return [e.constructor.name, e.message]; }
  return null;
}

function done(what) {
  console.log(`node package (${what}): ${passed} passed, ${failed} failed`);
  process.exit(failed ? 1 : 0);
}

module.exports = { check, thrown, done };
