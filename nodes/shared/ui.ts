/** UI pieces several nodes share: descriptions only (the model rule is rules/model.ts, its reader models.ts). */
import { NodeConnectionTypes, type INodeProperties, type INodeTypeDescription } from 'n8n-workflow';

/**
 * Not a description: the model reader lives in models.ts (issue 45); Chat and Responses still import it from here
 * until their own changes land, then this line goes.
 */

/** The project's docs: the README on the repository's page (package.json's homepage and repository). */
const DOCS_URL = 'https://github.com/gen-gateway/n8n-nodes-gen-gateway';

/** A node's Docs link: its README section, by GitHub's anchor (test/package/docs-links.test.ts holds each to a heading). */
export const docsUrl = (anchor: string) => `${DOCS_URL}#${anchor}`;

/** The model ID in a canvas subtitle: a resource locator's value, a plain string from an older workflow, or "no model". */
export const SUBTITLE_MODEL =
	'(typeof $parameter["model"] === "object" && $parameter["model"] !== null ? ($parameter["model"].value || "no model") : ($parameter["model"] || "no model"))';

export function modelLocator(
	searchListMethod: string,
	placeholder: string,
	extra: Partial<INodeProperties> = {},
): INodeProperties {
	return {
		displayName: 'Model',
		name: 'model',
		type: 'resourceLocator',
		default: { mode: 'list', value: '' },
		required: true,
		description:
			'Models your key can call (GET /v1/models). IDs are exact: -1k/-2k/-4k and build suffixes are part of the ID.',
		modes: [
			{
				displayName: 'From List',
				name: 'list',
				type: 'list',
				typeOptions: { searchListMethod, searchable: true },
			},
			{ displayName: 'ID', name: 'id', type: 'string', placeholder },
		],
		...extra,
	};
}

/**
 * The language-model picker (Chat, Responses, Chat Model). The key's list is the gateway's word on what the key may call;
 * it cannot say whether a channel serves the model right now (the spec: a listed model does not guarantee capacity),
 * so a model without one stays in the list and the hint says what its call does.
 */
export function languageModelLocator(): INodeProperties {
	return modelLocator('searchLanguageModels', 'alpha-chat-4o', {
		hint: 'The key\'s list (GET /v1/models) can name a model no channel serves right now: its call is refused (HTTP 503 "No available channel"); pick another.',
	});
}

/** The model ID in a canvas subtitle, read from another model parameter than `model` (see SUBTITLE_MODEL). */
export const subtitleModelOf = (name: string) =>
	SUBTITLE_MODEL.split('$parameter["model"]').join(`$parameter["${name}"]`);

/** Which kind of task an item names (Task Wait, Download Result); `description` says what Auto reads in that node. */
export function taskKindProperty(
	description: string,
	extra: Partial<INodeProperties> = {},
): INodeProperties {
	return {
		displayName: 'Task Kind',
		name: 'taskKind',
		type: 'options',
		options: [
			{ name: 'Auto (From Input Item)', value: 'auto' },
			{ name: 'Image Task', value: 'image' },
			{ name: 'Video Task', value: 'video' },
		],
		default: 'auto',
		description,
		...extra,
	};
}

/** Where video tasks are queried and downloaded (Task Wait, Download Result): the origin that created them. */
export function videoOriginProperty(
	name: string,
	extra: Partial<INodeProperties> = {},
): INodeProperties {
	return {
		displayName: 'Video Origin',
		name,
		type: 'options',
		options: [
			{
				name: 'Auto',
				value: 'auto',
				description:
					"The input item's origin (else the Video Base URL when set); a task unknown there is asked on the other origin before it is declared failed",
			},
			{ name: 'Base URL', value: 'base' },
			{ name: 'Video Base URL', value: 'video' },
		],
		default: 'auto',
		description:
			'Where video tasks are queried and downloaded: always on the origin that created them',
		...extra,
	};
}

/**
 * What every GenGateway action node's description shares (one input, defaults, group). The icon, subtitle, tool use
 * and credential stay in the node class, where n8n's lint rules (and its verification scan) read them.
 */
export function actionNode(
	d: Pick<INodeTypeDescription, 'displayName' | 'name' | 'description' | 'properties'> &
		Partial<Pick<INodeTypeDescription, 'version' | 'defaultVersion'>> & { outputNames?: string[] },
): Omit<INodeTypeDescription, 'icon' | 'credentials' | 'subtitle' | 'usableAsTool'> {
	const outputs = d.outputNames?.length ?? 1;
	return {
		displayName: d.displayName,
		name: d.name,
		group: ['transform'],
		version: d.version ?? 1,
		...(d.defaultVersion !== undefined ? { defaultVersion: d.defaultVersion } : {}),
		description: d.description,
		defaults: { name: d.displayName },
		inputs: [NodeConnectionTypes.Main],
		outputs: Array.from({ length: outputs }, () => NodeConnectionTypes.Main),
		...(d.outputNames ? { outputNames: d.outputNames } : {}),
		properties: d.properties,
	};
}

/** The node's "Options" collection (Add Option). */
export function optionsCollection(
	options: INodeProperties[],
	extra: Partial<INodeProperties> = {},
): INodeProperties {
	return {
		displayName: 'Options',
		name: 'options',
		type: 'collection',
		placeholder: 'Add Option',
		default: {},
		...extra,
		options,
	};
}
