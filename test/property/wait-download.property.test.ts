/**
 * Property: Task Wait (image, delta and gamma tasks) and Download Result (image task, video task, image and video
 * URL), 1–8 items, every error setting, Retry On Fail with 1–5 tries, against a generated hostile gateway and
 * result host: the invariants of invariants.ts hold. Replay a failure with the command it prints.
 */
import { checkProperty, useFixture } from './property';
import { runCase, waitDownloadNode } from './runs';

const BUDGET = { runs: 40, timeMs: 75_000 };
const fixture = useFixture();

it('Task Wait and Download Result keep their invariants against a generated hostile gateway and result host', async () => {
	await checkProperty(
		'wait-download.property.test.ts',
		fixture(),
		runCase(waitDownloadNode),
		BUDGET,
	);
}, 3_600_000);
