/**
 * The Pricing node's description as n8n sees it, held to the one it had before its operations moved to one file each
 * (issue 45): the same node-level fields, the same properties, and under every operation the same parameters in the
 * same order (the editor shows an operation's parameters in the order of the description).
 */
import type { INodeProperties, INodeTypeDescription } from 'n8n-workflow';
import { GenGatewayPricing } from '../../nodes/GenGatewayPricing/GenGatewayPricing.node';
import before from '../fixtures/pricing-description.json';

const now = JSON.parse(JSON.stringify(new GenGatewayPricing().description)) as INodeTypeDescription;
const was = before as unknown as INodeTypeDescription;
const OPERATIONS = ['getPrices', 'listModels', 'estimateVideoCost', 'settleTask'];

const underOperation = (properties: INodeProperties[], operation: string) =>
	properties.filter((p) => {
		const shown = p.displayOptions?.show?.operation as string[] | undefined;
		return !shown || shown.includes(operation);
	});
const sorted = (properties: INodeProperties[]) => properties.map((p) => JSON.stringify(p)).sort();

describe('the Pricing description is the one n8n saw before', () => {
	it('has the same node-level fields', () => {
		expect({ ...now, properties: undefined }).toEqual({ ...was, properties: undefined });
	});

	it('has the same properties, each exactly as it was', () => {
		expect(sorted(now.properties)).toEqual(sorted(was.properties));
	});

	it.each(OPERATIONS)('shows the same parameters in the same order under %s', (operation) => {
		expect(underOperation(now.properties, operation)).toEqual(
			underOperation(was.properties, operation),
		);
	});

	it('lists the four operations, alphabetically', () => {
		const operation = now.properties.find((p) => p.name === 'operation');
		expect((operation?.options ?? []).map((o) => (o as { value: string }).value)).toEqual([
			'estimateVideoCost',
			'getPrices',
			'listModels',
			'settleTask',
		]);
	});
});
