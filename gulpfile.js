// Copies what tsc does not emit into dist/: the themed SVG icons and the codex (*.node.json) files that n8n reads
// next to each node.
const { src, dest, parallel } = require('gulp');

function copyIcons() {
	return src('icons/*.svg').pipe(dest('dist/icons'));
}

function copyCodex() {
	return src('nodes/**/*.node.json', { base: '.' }).pipe(dest('dist'));
}

exports.build = parallel(copyIcons, copyCodex);
exports.default = exports.build;
