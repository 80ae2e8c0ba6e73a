'use strict';
// Where the package keeps its library: build/ under the package's root,
// where make puts it.
const path = require('node:path');

const ROOT = path.resolve(__dirname, '..', '..');
const LIB_NAME = process.platform === 'darwin' ? 'ifscore.dylib' : 'ifscore.so';
module.exports = { ROOT, libraryPath: path.join(ROOT, 'build', LIB_NAME) };
