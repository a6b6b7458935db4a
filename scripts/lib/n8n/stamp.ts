/**
 * Stamps: what a build and the repository's folders hold, each as one short hash. A state template is current while
 * its stamp is buildStamp(); a demo proof counts for this checkout while its stamp matches (scripts/demo/proof.ts).
 */
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import { ensureBuilt } from '../package';
import { ROOT } from '../repo';
import { N8N_VERSION } from './runtime';

function filesUnder(dir: string): string[] {
	return readdirSync(dir, { withFileTypes: true })
		.flatMap((e) => (e.isDirectory() ? filesUnder(join(dir, e.name)) : [join(dir, e.name)]))
		.sort();
}

/** What a state template holds, as one hash: the n8n version, the built package (dist/), its package.json and the papers the tarball carries. */
export function buildStamp(): string {
	ensureBuilt();
	const h = createHash('sha256')
		.update(`n8n ${N8N_VERSION}\0`)
		.update(readFileSync(join(ROOT, 'package.json')));
	for (const f of ['README.md', 'LICENSE', 'CHANGELOG.md'])
		if (existsSync(join(ROOT, f))) h.update(`\0${f}\0`).update(readFileSync(join(ROOT, f)));
	for (const f of filesUnder(join(ROOT, 'dist')))
		h.update(`\0${relative(ROOT, f)}\0`).update(readFileSync(f));
	return h.digest('hex').slice(0, 16);
}

/** One hash of every file under these folders of the repository (a stamp of what a run used). */
export function treeHash(dirs: string[]): string {
	const h = createHash('sha256');
	for (const d of dirs)
		for (const f of filesUnder(join(ROOT, d)))
			h.update(`\0${relative(ROOT, f)}\0`).update(readFileSync(f));
	return h.digest('hex').slice(0, 16);
}
