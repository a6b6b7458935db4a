const { src, dest, parallel } = require('gulp');

/** Icons live in icons/ and are referenced from dist/nodes/<Node>/ as file:../../icons/<name>.svg. */
function buildIcons() {
  return src('icons/*.svg').pipe(dest('dist/icons'));
}

/** Codex files (<Node>.node.json) sit beside each compiled node. */
function buildCodex() {
  return src('nodes/**/*.node.json').pipe(dest('dist/nodes'));
}

exports['build:icons'] = parallel(buildIcons, buildCodex);
exports.default = exports['build:icons'];
