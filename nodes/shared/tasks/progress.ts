/**
 * How a long wait goes, told while it goes (issue 44, bullet 7). n8n 2.41.1 lets a running node speak only through
 * `sendMessageToUI` (n8n-core base-execute-context: manual executions only, pushed to the editor as
 * `sendConsoleMessage` and printed in the browser's developer console under `[Node: "<name>"]`); execution hints show
 * once the node has finished, and a production execution has no live channel at all. So the wait reports there
 * (and to n8n's log at debug level) at its first poll and then every PROGRESS_EVERY_MS: the time waited, the polls
 * made, how many tasks ended, and each unfinished task's own status and progress; when the node's waits are over, its
 * hint says the same in one line.
 */
import type { NormalisedTask } from './phases';

/** a report at most this often (and at the first poll) */
export const PROGRESS_EVERY_MS = 10_000;
/** unfinished tasks named in one report */
const NAMED = 5;

interface Tracked {
	taskId: string;
	polls: number;
	task?: NormalisedTask;
	ended: boolean;
}

export interface ProgressSink {
	/** a live report (the editor's console, n8n's log) */
	report(text: string): void;
	/** the summary once every task ended (the node's hint) */
	summary(text: string): void;
}

/** "1 min 20 s", "45 s", "2 h 3 min" */
export function elapsedText(ms: number): string {
	const s = Math.max(0, Math.round(ms / 1000));
	if (s < 60) return `${s} s`;
	const m = Math.floor(s / 60);
	if (m < 60) return `${m} min ${s % 60} s`;
	return `${Math.floor(m / 60)} h ${m % 60} min`;
}

export class WaitProgress {
	private readonly started: number;
	private readonly tracked = new Map<object, Tracked>();
	private lastReport?: number;

	constructor(
		private readonly sink: ProgressSink,
		private readonly label: string,
		private readonly now: () => number = Date.now,
		private readonly everyMs = PROGRESS_EVERY_MS,
	) {
		this.started = now();
	}

	/** A poll of one task was answered (or failed): its count of polls and what the gateway last said of it. */
	polled(job: object, taskId: string, polls: number, task: NormalisedTask | undefined): void {
		const t = this.entry(job, taskId);
		t.polls = polls;
		if (task) t.task = task;
		const at = this.now();
		if (this.lastReport === undefined || at - this.lastReport >= this.everyMs) {
			this.lastReport = at;
			this.sink.report(this.text());
		}
	}

	/** The wait of one task begins. */
	begin(job: object, taskId: string): void {
		this.entry(job, taskId);
	}

	/** The wait of one task ended (completed, failed, or handed back still running). */
	ended(job: object, taskId: string, polls: number): void {
		const t = this.entry(job, taskId);
		t.polls = Math.max(t.polls, polls);
		t.ended = true;
	}

	/** The node's waits are over: the summary, once, when it waited for anything. */
	finish(): void {
		if (!this.tracked.size || this.finished) return;
		this.finished = true;
		this.sink.summary(this.summaryText());
	}
	private finished = false;

	private entry(job: object, taskId: string): Tracked {
		let t = this.tracked.get(job);
		if (!t) this.tracked.set(job, (t = { taskId, polls: 0, ended: false }));
		return t;
	}

	private polls(): number {
		let n = 0;
		for (const t of this.tracked.values()) n += t.polls;
		return n;
	}

	/** e.g. "Task Wait: waited 1 min 20 s, 34 polls; 2 of 5 tasks ended; still waiting for task_a (running, 45%), …" */
	text(): string {
		const all = [...this.tracked.values()];
		const open = all.filter((t) => !t.ended);
		const named = open
			.slice(0, NAMED)
			.map((t) => {
				const word = t.task?.rawStatus ?? t.task?.phase ?? 'not answered yet';
				const pct = typeof t.task?.progress === 'number' ? `, ${t.task.progress}%` : '';
				return `${t.taskId} (${word}${pct})`;
			})
			.join(', ');
		const more = open.length > NAMED ? ` and ${open.length - NAMED} more` : '';
		return (
			`${this.label}: waited ${elapsedText(this.now() - this.started)}, ${this.polls()} poll(s); ` +
			`${all.length - open.length} of ${all.length} task(s) ended` +
			(open.length ? `; still waiting for ${named}${more}` : '')
		);
	}

	private summaryText(): string {
		const n = this.tracked.size;
		return `Waited ${elapsedText(this.now() - this.started)} for ${n} task(s): ${this.polls()} poll(s) in all`;
	}
}
