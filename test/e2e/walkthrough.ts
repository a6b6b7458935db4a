/**
 * The README's "Your first image", done by hand through the editor as a new user does it: nothing imported, the
 * credential made in its dialog, both nodes found by searching the node panel, the model picked from the list.
 * Returns the pixel size of the image the binary preview shows.
 */
import { join } from 'node:path';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Page = any;

export interface Walkthrough {
	page: Page;
	base: string;
	apiKey: string;
	gatewayUrl: string;
	/** where a screenshot of each step goes */
	out: string;
}

export async function firstImageByHand(
	w: Walkthrough,
	step: <T>(name: string, fn: () => Promise<T>) => Promise<T>,
): Promise<{ width: number; height: number }> {
	const { page } = w;
	const shot = (name: string) => page.screenshot({ path: join(w.out, `walkthrough-${name}.png`) });
	const search = async (query: string, pick: string) => {
		const bar = page.locator('[data-test-id="node-creator-search-bar"]');
		await bar.fill(query);
		await page
			.locator('[data-test-id="node-creator-item-name"]', { hasText: pick })
			.first()
			.click();
	};
	await step('walkthrough-add-image-submit', async () => {
		await page.goto(`${w.base}/workflow/new`, { waitUntil: 'networkidle' });
		// the first page load of a fresh n8n takes a while on a busy machine
		await page.locator('[data-test-id="node-creator-plus-button"]').click({ timeout: 120_000 });
		await search('GenGateway Image Submit', 'GenGateway Image Submit');
		// a node with operations lists its actions first
		await page
			.locator('[data-test-id="node-creator-item-name"]', {
				hasText: 'Generate an image from text',
			})
			.first()
			.click();
		await page.locator('[data-test-id="ndv"]').waitFor();
		await shot('1-image-submit-added');
	});
	await step('walkthrough-credential', async () => {
		// with no credential yet, the node offers to make one; with one, the credential list offers a new one
		const connect = page.getByText('Connect to GenGateway');
		if (await connect.isVisible()) await connect.click();
		else {
			await page.locator('[data-test-id="node-credentials-select"]').click();
			await page.locator('[data-test-id="node-credentials-select-item-new"]').click();
		}
		const modal = page.locator('[data-test-id="editCredential-modal"]');
		await modal.waitFor();
		await modal.locator('[data-test-id="parameter-input-apiKey"] input').fill(w.apiKey);
		await modal.locator('[data-test-id="parameter-input-baseUrl"] input').fill(w.gatewayUrl);
		await modal.locator('[data-test-id="credential-save-button"]').click();
		await modal.waitFor({ state: 'hidden' });
		await shot('2-credential-saved');
	});
	await step('walkthrough-parameters', async () => {
		const params = page.locator('[data-test-id="ndv"] [data-test-id="node-parameters"]');
		const model = params
			.locator('[data-test-id="resource-locator-model"], [data-test-id="parameter-input-model"]')
			.first();
		// the list the key's models fill (GET /v1/models), searched and picked
		await model.locator('input').nth(1).click();
		await page.keyboard.type('alpha-image-2.5');
		await page
			.locator('[data-test-id="rlc-item"], [data-test-id^="resource-locator-dropdown"] li')
			.filter({ hasText: 'alpha-image-2.5' })
			.first()
			.click();
		const prompt = params
			.locator(
				'[data-test-id="parameter-input-prompt"] textarea, [data-test-id="parameter-input-prompt"] input',
			)
			.first();
		await prompt.fill('a lighthouse at dawn, watercolor');
		await shot('3-parameters');
		await page.locator('[data-test-id="ndv-close-button"]').click();
		await page.locator('[data-test-id="ndv"]').waitFor({ state: 'hidden' });
	});
	await step('walkthrough-add-task-wait', async () => {
		await page
			.locator('[data-test-id="canvas-node"][data-node-name="GenGateway Image Submit"]')
			.hover();
		await page
			.locator(
				'[data-test-id="canvas-node"][data-node-name="GenGateway Image Submit"] ~ * [data-test-id="canvas-handle-plus"], [data-test-id="canvas-handle-plus"]',
			)
			.last()
			.click();
		await search('Task Wait', 'GenGateway Task Wait');
		// n8n shows an installed community node's details first
		await page.getByRole('button', { name: 'Add to workflow' }).click();
		await page.locator('[data-test-id="ndv"]').waitFor();
		await shot('4-task-wait-added');
		await page.locator('[data-test-id="ndv-close-button"]').click();
		await page.locator('[data-test-id="ndv"]').waitFor({ state: 'hidden' });
	});
	return step('walkthrough-run', async () => {
		await page.locator('[data-test-id="execute-workflow-button"]').click();
		await page
			.locator(
				'[data-test-id="canvas-node"][data-node-name="GenGateway Task Wait"] [data-test-id="canvas-node-status-success"]',
			)
			.waitFor({ timeout: 120_000 });
		await shot('5-run');
		await page
			.locator('[data-test-id="canvas-node"][data-node-name="GenGateway Task Wait"]')
			.dblclick({ force: true });
		const output = page.locator('[data-test-id="output-panel"]');
		await output.locator('[data-test-id="radio-button-binary"]').click();
		await output.locator('[data-test-id="ndv-view-binary-data"]').first().click();
		const img = output.locator('img[src*="/rest/binary-data"]');
		await img.waitFor();
		await page.waitForFunction(
			(el: { complete: boolean; naturalWidth: number }) => el.complete && el.naturalWidth > 0,
			await img.elementHandle(),
		);
		await shot('6-binary-preview');
		return img.evaluate((el: { naturalWidth: number; naturalHeight: number }) => ({
			width: el.naturalWidth,
			height: el.naturalHeight,
		}));
	});
}

/**
 * After firstImageByHand (Task Wait's panel open on its image): GenGateway Download Result dropped on Task Wait's
 * Completed output from its "+", nothing set, run with its "Execute step". Returns the file name Task Wait's item and
 * Download Result's item show in their binary views (the input and output panels of Download Result).
 */
export async function downloadAgainByHand(
	w: Walkthrough,
	step: <T>(name: string, fn: () => Promise<T>) => Promise<T>,
): Promise<{ waited: string; downloaded: string }> {
	const { page } = w;
	const shot = (name: string) => page.screenshot({ path: join(w.out, `walkthrough-${name}.png`) });
	await step('walkthrough-add-download-result', async () => {
		await page.locator('[data-test-id="ndv-close-button"]').click();
		await page.locator('[data-test-id="ndv"]').waitFor({ state: 'hidden' });
		await page
			.locator(
				'[data-test-id="canvas-node-output-handle"][data-node-name="GenGateway Task Wait"][data-index="0"] [data-test-id="canvas-handle-plus"]',
			)
			.click();
		await page.locator('[data-test-id="node-creator-search-bar"]').fill('Download Result');
		await page
			.locator('[data-test-id="node-creator-item-name"]', { hasText: 'GenGateway Download Result' })
			.first()
			.click();
		// n8n shows an installed community node's details first
		await page.getByRole('button', { name: 'Add to workflow' }).click();
		await page.locator('[data-test-id="ndv"]').waitFor();
		await shot('7-download-result-added');
	});
	return step('walkthrough-download-run', async () => {
		// the node's own "Execute step": Task Wait's item of the run before is its input
		await page.locator('[data-test-id="ndv"] [data-test-id="node-execute-button"]').first().click();
		await page
			.locator('[data-test-id="output-panel"] [data-test-id="radio-button-binary"]')
			.waitFor({ timeout: 120_000 });
		const fileName = async (panel: string) => {
			const p = page.locator(`[data-test-id="${panel}"]`);
			await p.locator('[data-test-id="radio-button-binary"]').click();
			await p.getByText('File Name:').first().waitFor();
			return /File Name:\s*(\S+)/.exec(await p.innerText())?.[1] ?? '';
		};
		const names = {
			waited: await fileName('ndv-input-panel'),
			downloaded: await fileName('output-panel'),
		};
		await shot('8-download-result-binary');
		return names;
	});
}
