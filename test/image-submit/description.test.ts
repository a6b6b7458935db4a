/**
 * The Image Submit node's description as n8n sees it, held to the one it had before Generate and Edit moved to one
 * file each (issue 45): the same node-level fields and the same properties, each exactly as it was and in the same
 * order (the editor shows the parameters in the order of the description; the hidden first "mode" must stay first).
 */
import type { INodeTypeDescription } from 'n8n-workflow';
import { GenGatewayImageSubmit } from '../../nodes/GenGatewayImageSubmit/GenGatewayImageSubmit.node';
import before from '../fixtures/image-submit-description.json';

const now = JSON.parse(
	JSON.stringify(new GenGatewayImageSubmit().description),
) as INodeTypeDescription;
const was = before as unknown as INodeTypeDescription;

describe('the Image Submit description is the one n8n saw before', () => {
	it('has the same node-level fields', () => {
		expect({ ...now, properties: undefined }).toEqual({ ...was, properties: undefined });
	});

	it('has the same properties, each exactly as it was, in the same order', () => {
		expect(now.properties.map((p) => p.name)).toEqual(was.properties.map((p) => p.name));
		expect(now.properties).toEqual(was.properties);
	});

	it('lists Generate then Edit', () => {
		const operation = now.properties.find((p) => p.name === 'operation');
		expect((operation?.options ?? []).map((o) => (o as { value: string }).value)).toEqual([
			'generate',
			'edit',
		]);
	});
});
