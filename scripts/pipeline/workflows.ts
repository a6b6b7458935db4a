/**
 * The flagship pipeline: two scheduled workflows over one PostgreSQL table (examples/pipeline.sql).
 *
 * Submit (examples/pipeline-submit.json): every tick, claims up to 20 `pending` rows per kind (status
 * `submitting`, one SQL statement, so two overlapping ticks never claim the same row), submits them with Image
 * Submit / Video Create, and writes each task ID to its row at once (`submitted`); a refused or uncertain
 * submission is `failed` with the reason and is never sent again.
 *
 * Deliver (examples/pipeline-deliver.json): every tick, leases up to 20 `submitted` rows (a lease that expires, so
 * rows of a crashed execution come back by themselves) and hands their task IDs to Task Wait with Max Wait per
 * Execution set. Completed: the file goes to the S3 bucket under a key made of the row and task IDs (an upload
 * repeated after a crash overwrites the same object), the row becomes `done` with the key, and only the execution
 * that made that transition sends the mail (with a link to the object), then stamps `mailed_at`. Failed: `failed`
 * with the gateway's message (a result that could not be downloaded stays `submitted`: the next tick downloads it
 * again, free). Still Running: the lease is released for the next tick.
 *
 * Generated here (`npx tsx scripts/pipeline/workflows.ts`); the e2e test checks the files agree.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CRED, toN8n, type Conn, type N } from '../demo/workflows';

export const PG_CRED = 'REPLACE_POSTGRES_CREDENTIAL_ID';
export const S3_CRED = 'REPLACE_S3_CREDENTIAL_ID';
export const SMTP_CRED = 'REPLACE_SMTP_CREDENTIAL_ID';
/** where the mail's link points: the bucket's public address */
export const RESULTS_URL = 'https://objects.example.com/gen-results';
export const BUCKET = 'gen-results';
export const MAIL_FROM = 'Generation pipeline <pipeline@example.com>';
/** rows per tick and kind */
export const BATCH = 20;
/** the deliver workflow's lease: longer than one execution (Max Wait per Execution + downloads, upload, mail) */
export const LEASE_SECONDS = 60;
export const MAX_WAIT_SECONDS = 20;
export const TICK_MINUTES = 1;

const PKG = 'n8n-nodes-gen-gateway';
const gateway = { genGatewayApi: { id: CRED, name: 'GenGateway account' } };
const model = (value: string) => ({ __rl: true, mode: 'id', value });
const schedule = (name: string): N => ({
	name,
	type: 'n8n-nodes-base.scheduleTrigger',
	typeVersion: 1.2,
	parameters: { rule: { interval: [{ field: 'minutes', minutesInterval: TICK_MINUTES }] } },
});
/** n8n's Postgres node, one parameterised query per item ($1, $2, … from an array expression: commas in values are safe) */
const sql = (name: string, query: string, params?: string, at?: [number, number]): N => ({
	name,
	type: 'n8n-nodes-base.postgres',
	typeVersion: 2.5,
	parameters: {
		operation: 'executeQuery',
		query,
		options: {
			...(params ? { queryReplacement: `={{ ${params} }}` } : {}),
			queryBatching: 'independently',
		},
	},
	credentials: { postgres: { id: PG_CRED, name: 'Pipeline database' } },
	...(at ? { at } : {}),
});
const claim = (kind: 'image' | 'video') =>
	`WITH claimed AS (
  UPDATE gen_prompts SET status = 'submitting', updated_at = now()
  WHERE id IN (SELECT id FROM gen_prompts WHERE status = 'pending' AND kind = '${kind}' ORDER BY id LIMIT ${BATCH} FOR UPDATE SKIP LOCKED)
  RETURNING id, model, prompt, size, seconds
)
SELECT * FROM claimed ORDER BY id`;
/** the row's new state after a submission: `submitted` with its task ID, else `failed` with the reason */
const RECORD = `UPDATE gen_prompts
SET status = $3, task_id = NULLIF($2, ''), origin = NULLIF($4, ''), error = NULLIF($5, ''),
    submitted_at = CASE WHEN $3 = 'submitted' THEN now() END, updated_at = now()
WHERE id = $1 AND status = 'submitting'
RETURNING id, status, task_id`;
const recordParams = (claimNode: string) =>
	`[ $('${claimNode}').item.json.id, $json.task_id ?? '', $json.task_id && !['failed', 'uncertain'].includes($json.status) ? 'submitted' : 'failed', $json.origin ?? '', $json.status === 'uncertain' ? 'submission uncertain (' + $json.reason + '): the gateway may have accepted and charged it; check its usage records before submitting again' : ($json.error_message ?? $json.error?.message ?? '') ]`;

const submitNodes: N[] = [
	{ ...schedule('Every minute'), at: [0, 0.5] },
	sql('Claim image prompts', claim('image'), undefined, [1, 0]),
	{
		name: 'Image Submit',
		type: `${PKG}.genGatewayImageSubmit`,
		typeVersion: 1,
		parameters: {
			operation: 'generate',
			mode: 'async',
			model: model('={{ $json.model }}'),
			prompt: '={{ $json.prompt }}',
			size: "={{ $json.size || '1024x1024' }}",
		},
		credentials: gateway,
		onError: 'continueRegularOutput',
		at: [2, 0],
	},
	sql('Record image submissions', RECORD, recordParams('Claim image prompts'), [3, 0]),
	sql('Claim video prompts', claim('video'), undefined, [1, 1]),
	{
		name: 'Video Create',
		type: `${PKG}.genGatewayVideoCreate`,
		typeVersion: 1,
		parameters: {
			family: 'gamma',
			model: model('={{ $json.model }}'),
			prompt: '={{ $json.prompt }}',
			gammaSeconds: '={{ $json.seconds || 8 }}',
			aspectRatio: '16:9',
		},
		credentials: gateway,
		onError: 'continueRegularOutput',
		at: [2, 1],
	},
	sql('Record video submissions', RECORD, recordParams('Claim video prompts'), [3, 1]),
];
const submitConn: Conn = [
	['Every minute', 0, 'Claim image prompts'],
	['Every minute', 0, 'Claim video prompts'],
	['Claim image prompts', 0, 'Image Submit'],
	['Image Submit', 0, 'Record image submissions'],
	['Claim video prompts', 0, 'Video Create'],
	['Video Create', 0, 'Record video submissions'],
];

const LEASE = `WITH leased AS (
  UPDATE gen_prompts SET lease_until = now() + interval '${LEASE_SECONDS} seconds', updated_at = now()
  WHERE id IN (SELECT id FROM gen_prompts WHERE status = 'submitted' AND (lease_until IS NULL OR lease_until < now()) ORDER BY id LIMIT ${BATCH} FOR UPDATE SKIP LOCKED)
  RETURNING id, kind, model, task_id, origin, email, prompt, (extract(epoch FROM submitted_at) * 1000)::float8 AS wait_started_at
)
SELECT * FROM leased ORDER BY id`;
const leased = "$('Lease submitted tasks').item.json";
/** the object key: row and task IDs, the file's own extension */
const KEY = `'results/' + ${leased}.id + '-' + $('Task Wait').item.json.task_id + '.' + $('Task Wait').item.binary.data.fileExtension`;
const MARK_DONE = `UPDATE gen_prompts SET status = 'done', object_key = $2, error = NULL, lease_until = NULL, done_at = now(), updated_at = now()
WHERE id = $1 AND status = 'submitted'
RETURNING id, email, prompt, task_id, object_key`;
const MARK_FAILED = `UPDATE gen_prompts
SET status = CASE WHEN $3 = 'retry' THEN status ELSE 'failed' END, error = $2, lease_until = NULL, updated_at = now()
WHERE id = $1 AND status = 'submitted'
RETURNING id, status, error`;
const failedParams = `[ ${leased}.id, String($json.error_message ?? $json.error?.message ?? $json.error ?? 'failed'), $json.download_later === true ? 'retry' : 'fail' ]`;

const deliverNodes: N[] = [
	{ ...schedule('Every minute'), at: [0, 0] },
	sql('Lease submitted tasks', LEASE, undefined, [1, 0]),
	{
		name: 'Task Wait',
		type: `${PKG}.genGatewayTaskWait`,
		typeVersion: 1,
		parameters: {
			taskId: '={{ $json.task_id }}',
			taskKind: 'auto',
			options: { maxWaitSeconds: MAX_WAIT_SECONDS },
		},
		credentials: gateway,
		onError: 'continueErrorOutput',
		at: [2, 0],
	},
	{
		name: 'Upload to S3',
		type: 'n8n-nodes-base.s3',
		typeVersion: 1,
		parameters: {
			operation: 'upload',
			bucketName: BUCKET,
			fileName: `={{ ${KEY} }}`,
			binaryData: true,
			binaryPropertyName: 'data',
			additionalFields: {},
		},
		credentials: { s3: { id: S3_CRED, name: 'Object store' } },
		at: [3, -0.5],
	},
	sql('Mark done', MARK_DONE, `[ ${leased}.id, ${KEY} ]`, [4, -0.5]),
	{
		name: 'Send mail',
		type: 'n8n-nodes-base.emailSend',
		typeVersion: 2.1,
		parameters: {
			fromEmail: MAIL_FROM,
			toEmail: '={{ $json.email }}',
			subject: '=Your generation #{{ $json.id }} is ready',
			emailFormat: 'text',
			text: `=Prompt: {{ $json.prompt }}\nTask: {{ $json.task_id }}\nResult: ${RESULTS_URL}/{{ $json.object_key }}\n`,
			options: { appendAttribution: false },
		},
		credentials: { smtp: { id: SMTP_CRED, name: 'Mail server' } },
		at: [5, -0.5],
	},
	sql(
		'Mark mailed',
		`UPDATE gen_prompts SET mailed_at = now() WHERE id = $1 RETURNING id, mailed_at`,
		`[ $('Mark done').item.json.id ]`,
		[6, -0.5],
	),
	sql('Mark failed', MARK_FAILED, failedParams, [3, 0.5]),
	sql(
		'Release lease',
		`UPDATE gen_prompts SET lease_until = NULL, updated_at = now() WHERE id = $1 AND status = 'submitted' RETURNING id`,
		`[ ${leased}.id ]`,
		[3, 1.5],
	),
];
const deliverConn: Conn = [
	['Every minute', 0, 'Lease submitted tasks'],
	['Lease submitted tasks', 0, 'Task Wait'],
	['Task Wait', 0, 'Upload to S3'],
	['Upload to S3', 0, 'Mark done'],
	['Mark done', 0, 'Send mail'],
	['Send mail', 0, 'Mark mailed'],
	['Task Wait', 1, 'Mark failed'],
	['Task Wait', 3, 'Mark failed'],
	['Task Wait', 2, 'Release lease'],
];

export interface PipelineWorkflow {
	id: string;
	name: string;
	folder: string;
	description: string;
	note: string;
	nodes: N[];
	conn: Conn;
}

export const PIPELINE: PipelineWorkflow[] = [
	{
		id: 'ggpipe01',
		name: 'GenGateway pipeline: submit pending prompts',
		folder: 'pipeline-submit',
		description:
			'Scheduled: claims pending prompts from PostgreSQL, submits them, writes each task ID to its row.',
		note: '## Pipeline, part 1: submit\nEvery minute, **Claim** takes up to 20 `pending` rows of `gen_prompts` (examples/pipeline.sql) and marks them `submitting` in one statement. **Image Submit** / **Video Create** send them (a batch never throws after money was spent: every row comes out, paired), and **Record** writes the task ID at once (`submitted`) or the reason (`failed`). An uncertain submission is never sent again.\n\nCredentials: GenGateway, Postgres.',
		nodes: submitNodes,
		conn: submitConn,
	},
	{
		id: 'ggpipe02',
		name: 'GenGateway pipeline: deliver results',
		folder: 'pipeline-deliver',
		description:
			'Scheduled: waits for submitted tasks, uploads results to S3, marks rows done or failed, mails a link.',
		note: "## Pipeline, part 2: deliver\nEvery minute, **Lease** takes up to 20 `submitted` rows for 60 s (a crashed run gives them back by itself). **Task Wait** hands back Still Running after 20 s (the lease is released for the next tick). Completed: **Upload to S3** (key `results/<row>-<task>.<ext>`), **Mark done**, then **Send mail** only for the run that made the row `done`. Failed: **Mark failed** with the gateway's message (a result that could not be downloaded stays `submitted` and is fetched again).\n\nCredentials: GenGateway, Postgres, S3, SMTP.",
		nodes: deliverNodes,
		conn: deliverConn,
	},
];

export function pipelineToN8n(w: PipelineWorkflow): Record<string, unknown> {
	return toN8n(w);
}

if (require.main === module) {
	for (const w of PIPELINE)
		writeFileSync(
			join(__dirname, '../../examples', `${w.folder}.json`),
			JSON.stringify(pipelineToN8n(w), null, 2) + '\n',
		);
	console.log(`wrote ${PIPELINE.length} pipeline workflows to examples/`);
}
