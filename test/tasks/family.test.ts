/**
 * One rule for a video's family (issue 33): Task Wait's jobs, Download Result's sources and the wait read it from
 * nodes/shared/models.ts `videoFamilyOf`. A property over generated items: the family a job gets is that rule's, the
 * `family` an item of ours names wins over the model, and a gamma model is gamma whatever else the body says.
 */
import fc from 'fast-check';
import { videoFamilyOf } from '../../nodes/shared/models';
import { buildJob } from '../../nodes/shared/tasks/jobs';
import { checkSync } from '../property/check';

const models = fc.constantFrom(
	'gamma-video-1.0',
	'delta-video-2-0-mini-260615',
	'alpha-image-2.5',
	'',
	'video-x',
);
const item = fc.record(
	{
		family: fc.constantFrom('delta', 'gamma', 'other', undefined),
		model: models,
		object: fc.constantFrom('video', 'image', undefined),
		data: fc.option(fc.record({ model: models }), { nil: undefined }),
		kind: fc.constantFrom('video', 'image', undefined),
	},
	{ requiredKeys: [] },
);

describe('one rule for a video family', () => {
	it('readable cases: a gamma body with object "video" is gamma; the item\'s own family wins; nothing said, nothing guessed', () => {
		expect(videoFamilyOf({ model: 'gamma-video-1.0', object: 'video' })).toBe('gamma');
		expect(videoFamilyOf({ data: { model: 'gamma-video-1.0' }, object: 'video' })).toBe('gamma');
		expect(videoFamilyOf({ family: 'delta', model: 'gamma-video-1.0' })).toBe('delta');
		expect(videoFamilyOf({ object: 'video' })).toBeUndefined();
	});

	it("Task Wait's job family is the rule's, for any item", () => {
		checkSync(
			'family.test.ts',
			item,
			(json) => {
				const { meta } = buildJob(0, json as never, 'task_1', 'video', {
					deadlineMs: 1000,
					maxWaitMs: 0,
					now: Date.now(),
				});
				expect(meta.family).toBe(videoFamilyOf(json as Record<string, unknown>));
				const m =
					typeof json.model === 'string'
						? json.model
						: typeof json.data?.model === 'string'
							? json.data.model
							: '';
				if (json.family !== 'delta' && json.family !== 'gamma' && m.startsWith('gamma-'))
					expect(meta.family).toBe('gamma');
			},
			{ runs: 200, timeMs: 5000 },
		);
	});
});
